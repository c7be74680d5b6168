package dev.cuckoo.server;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a server holds, to compare a replica with its master: per database, per key, every chunk of
 * CF.SCANDUMP (the filter's exact bytes) and whether and when the key expires (PEXPIRETIME).
 */
final class ReplicaState {
  private ReplicaState() {}

  /** Returns "db/key" mapped to the key's dump and expiry, for databases 0..databases-1. */
  static Map<String, String> of(int port, int databases) throws IOException {
    Map<String, String> state = new TreeMap<>();
    try (RespClient client = new RespClient(port)) {
      for (int db = 0; db < databases; db++) {
        client.call("SELECT", db);
        List<?> keys = (List<?>) client.call("KEYS", "*");
        for (Object key : keys) {
          String name = RespClient.text(key);
          state.put(
              db + "/" + name, dump(client, name) + " expires " + client.call("PEXPIRETIME", name));
        }
      }
    }
    return state;
  }

  private static String dump(RespClient client, String key) throws IOException {
    List<String> chunks = new ArrayList<>();
    long iterator = 0;
    do {
      Object reply = client.call("CF.SCANDUMP", key, iterator);
      if (!(reply instanceof List<?> pair)) {
        return "not a filter: " + reply;
      }
      iterator = (Long) pair.get(0);
      if (iterator != 0) {
        chunks.add(Base64.getEncoder().encodeToString((byte[]) pair.get(1)));
      }
    } while (iterator != 0);
    return String.join(",", chunks);
  }

  /** Returns one field of INFO replication (null if absent). */
  static String info(int port, String field) throws IOException {
    try (RespClient client = new RespClient(port)) {
      String info = RespClient.text(client.call("INFO", "replication"));
      for (String line : info.split("\r\n")) {
        if (line.startsWith(field + ":")) {
          return line.substring(field.length() + 1);
        }
      }
      return null;
    }
  }

  /**
   * Waits until the master lists the replica listening on {@code replicaPort} as online in INFO
   * replication (a {@code slaveN} line with its port and {@code state=online}): the replica's own
   * link can be up a moment before the master has taken its first acknowledgement.
   *
   * @throws AssertionError naming the master's replica lines if it does not within {@code millis}
   */
  static void awaitOnline(int master, int replicaPort, long millis)
      throws IOException, InterruptedException {
    long deadline = System.currentTimeMillis() + millis;
    String lines = "";
    while (System.currentTimeMillis() < deadline) {
      try (RespClient client = new RespClient(master)) {
        StringBuilder found = new StringBuilder();
        for (String line : RespClient.text(client.call("INFO", "replication")).split("\r\n")) {
          if (line.startsWith("slave") && line.contains(",port=" + replicaPort + ",")) {
            if (line.contains(",state=online,")) {
              return;
            }
            found.append(line).append(' ');
          }
        }
        lines = found.toString();
      }
      Thread.sleep(20);
    }
    throw new AssertionError(
        "the master did not list replica "
            + replicaPort
            + " online within "
            + millis
            + " ms: "
            + lines);
  }

  /**
   * Waits until the replica's link is up and it has applied everything the master streamed. A
   * question whose connection is closed (a sentinel reconfiguring the server closes its normal
   * clients) is asked again.
   *
   * @throws AssertionError naming both offsets if it does not within {@code millis}
   */
  static void awaitInSync(int master, int replica, long millis)
      throws IOException, InterruptedException {
    long deadline = System.currentTimeMillis() + millis;
    String last = "";
    while (System.currentTimeMillis() < deadline) {
      String masterOffset;
      String link;
      String replicaOffset;
      try {
        masterOffset = info(master, "master_repl_offset");
        link = info(replica, "master_link_status");
        replicaOffset = info(replica, "slave_repl_offset");
      } catch (IOException e) {
        // a sentinel that reconfigures a server closes its normal clients: ask again
        last = e.toString();
        Thread.sleep(20);
        continue;
      }
      last = "master at " + masterOffset + ", replica link " + link + " at " + replicaOffset;
      if ("up".equals(link) && masterOffset.equals(replicaOffset)) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the replica did not catch up within " + millis + " ms: " + last);
  }

  /** Returns one field of INFO stats (null if absent). */
  static String stat(int port, String field) throws IOException {
    try (RespClient client = new RespClient(port)) {
      for (String line : RespClient.text(client.call("INFO", "stats")).split("\r\n")) {
        if (line.startsWith(field + ":")) {
          return line.substring(field.length() + 1);
        }
      }
    }
    return null;
  }

  /** Creates {@code keys} filters named prefix0.. holding {@code items} items each. */
  static void fill(int port, String prefix, int keys, int items) throws IOException {
    fill(port, prefix, keys, items, false);
  }

  /**
   * As {@link #fill(int, String, int, int)}, with items that differ from key to key (no two tables
   * alike, so a compressed transfer does not shrink them to one).
   */
  static void fillDistinct(int port, String prefix, int keys, int items) throws IOException {
    fill(port, prefix, keys, items, true);
  }

  private static void fill(int port, String prefix, int keys, int items, boolean distinct)
      throws IOException {
    try (RespClient client = new RespClient(port)) {
      for (int k = 0; k < keys; k++) {
        client.call("CF.RESERVE", prefix + k, Math.max(64, items * 2));
        Object[] insert = new Object[items + 3];
        insert[0] = "CF.INSERT";
        insert[1] = prefix + k;
        insert[2] = "ITEMS";
        for (int i = 0; i < items; i++) {
          insert[i + 3] = distinct ? prefix + k + ":i" + i : "i" + i;
        }
        Object added = client.call(insert);
        if (!(added instanceof java.util.List<?> list) || list.size() != items) {
          throw new IllegalStateException("CF.INSERT " + prefix + k + " answered " + added);
        }
      }
    }
  }

  /**
   * Waits until {@code condition} holds; returns false if it still does not after {@code millis}.
   */
  static boolean await(Condition condition, long millis) throws Exception {
    long deadline = System.currentTimeMillis() + millis;
    while (!condition.holds()) {
      if (System.currentTimeMillis() > deadline) {
        return false;
      }
      Thread.sleep(20);
    }
    return true;
  }

  /** A condition a test waits for. */
  @FunctionalInterface
  interface Condition {
    boolean holds() throws Exception;
  }
}
