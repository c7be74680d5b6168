package dev.cuckoo.server;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A writer for cluster failover tests: adds a new item to one of its keys (all in one master's
 * slots) with CF.ADD on the node CLUSTER SLOTS names for the key's slot, then asks WAIT 1; an item
 * whose WAIT answered 1 is confirmed (it reached a replica). It routes by CLUSTER SLOTS itself and
 * never relies on redirects: on an error or a lost connection it asks a running node again.
 */
final class ConfirmedWriter implements Runnable {
  /** One confirmed item and its key. */
  record Item(String key, String item) {}

  private final ClusterNodes cluster;
  private final List<String> keys;
  private final int slot;
  private final ConcurrentLinkedQueue<Item> confirmed = new ConcurrentLinkedQueue<>();
  private final AtomicLong attempts = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private volatile boolean stopped;

  /** A writer to {@code keys}, which all hash to {@code slot}. */
  ConfirmedWriter(ClusterNodes cluster, List<String> keys, int slot) {
    this.cluster = cluster;
    this.keys = keys;
    this.slot = slot;
  }

  /**
   * Returns {@code count} keys with one hash tag ("f{tag}:n") whose slot lies in {@code range}
   * ({start, end}), asking {@code anyNode} CLUSTER KEYSLOT.
   */
  static List<String> keysOf(ClusterNodes.Node anyNode, int[] range, int count) throws IOException {
    for (int tag = 0; ; tag++) {
      String first = "f{" + tag + "}:0";
      long slot = (Long) ClusterNodes.call(anyNode, "CLUSTER", "KEYSLOT", first);
      if (slot >= range[0] && slot <= range[1]) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
          keys.add("f{" + tag + "}:" + i);
        }
        return keys;
      }
    }
  }

  @Override
  public void run() {
    RespClient client = null;
    long sequence = 0;
    while (!stopped) {
      String key = keys.get((int) (sequence % keys.size()));
      String item = "item-" + sequence;
      sequence++;
      attempts.incrementAndGet();
      try {
        if (client == null) {
          client = new RespClient(ownerPort());
        }
        Object added = client.call("CF.ADD", key, item);
        if (added instanceof RespClient.Err) {
          failures.incrementAndGet();
          client = closed(client);
          pause();
          continue;
        }
        Object acked = client.call("WAIT", "1", "300");
        if (Long.valueOf(1).equals(acked)) {
          confirmed.add(new Item(key, item));
        }
      } catch (IOException | RuntimeException e) {
        failures.incrementAndGet();
        client = closed(client);
        pause();
      }
    }
    closed(client);
  }

  private static RespClient closed(RespClient client) {
    if (client != null) {
      try {
        client.close();
      } catch (IOException ignored) {
        // already broken
      }
    }
    return null;
  }

  private static void pause() {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Returns the client port CLUSTER SLOTS (of the first running node that answers) gives. */
  private int ownerPort() throws IOException {
    IOException last = new IOException("no running node answered CLUSTER SLOTS");
    for (ClusterNodes.Node node : cluster.nodes()) {
      if (!cluster.alive(node)) {
        continue;
      }
      try {
        Integer port = ownerPort(node, slot);
        if (port != null) {
          return port;
        }
      } catch (IOException e) {
        last = e;
      }
    }
    throw last;
  }

  /** Returns the client port of the master that {@code node}'s CLUSTER SLOTS gives for a slot. */
  static Integer ownerPort(ClusterNodes.Node node, int slot) throws IOException {
    Object reply = ClusterNodes.call(node, "CLUSTER", "SLOTS");
    if (!(reply instanceof List<?> ranges)) {
      return null;
    }
    for (Object range : ranges) {
      List<?> fields = (List<?>) range;
      if ((Long) fields.get(0) <= slot && slot <= (Long) fields.get(1)) {
        return (int) (long) (Long) ((List<?>) fields.get(2)).get(1);
      }
    }
    return null;
  }

  /** Returns the items confirmed so far. */
  List<Item> confirmed() {
    return new ArrayList<>(confirmed);
  }

  /** Returns how many writes were tried and how many failed (error or lost connection). */
  long[] counts() {
    return new long[] {attempts.get(), failures.get()};
  }

  /** Stops the writer after its current write. */
  void stop() {
    stopped = true;
  }
}
