package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code redis-cli --cluster reshard} of 1,500 slots between the cuckoo-server masters of a cluster
 * of three masters with a replica each, while a writer adds items and confirms each with {@code
 * WAIT 1}, following MOVED and ASK as a cluster client does: afterwards every confirmed item
 * answers {@code CF.EXISTS 1} on its slot's new owner, and each filter counts exactly the items
 * confirmed for it (none lost, none applied twice).
 *
 * <p>It needs the cluster's replicas ({@code CLUSTER REPLICATE}, which {@code --cluster create
 * --cluster-replicas 1} sends; without them no WAIT confirms anything) and the dispatcher's slot
 * check (MOVED for a slot served elsewhere, ASK for a missing key of a migrating slot, ASKING for
 * an importing one): without it a write that reaches the old owner after its slot moved lands there
 * and is lost to the new owner. Slow (about 40 s on a quiet host): run it with {@code
 * -Dtest.excludedTags=none -Dtest=ClusterReshardUnderLoadTest}.
 */
@Tag("slow")
class ClusterReshardUnderLoadTest {
  private static final int FILTERS = 200;
  private static final int SLOTS = 1500;

  private final List<CuckooServer> servers = new ArrayList<>();

  @AfterEach
  void stop() {
    for (CuckooServer server : servers) {
      server.close();
    }
  }

  /** A writer that follows MOVED and ASK and confirms each add with WAIT 1. */
  private static final class Writer implements Runnable {
    final int[] owners;
    final Map<String, Integer> confirmed = new HashMap<>();
    final Map<String, Integer> applied = new HashMap<>();
    final Map<String, List<String>> items = new HashMap<>();
    final AtomicBoolean stop = new AtomicBoolean();
    volatile Throwable failure;

    Writer(int[] owners) {
      this.owners = owners;
    }

    @Override
    public void run() {
      Map<Integer, RespClient> clients = new HashMap<>();
      try {
        for (int i = 0; !stop.get(); i++) {
          String key = "load:" + (i % FILTERS);
          String item = "item-" + i;
          int port = owners[ClusterReshardTest.slot(key)];
          boolean asking = false;
          for (int redirects = 0; ; redirects++) {
            assertTrue(redirects < 10, "redirected in circles: " + key);
            RespClient client = clients.computeIfAbsent(port, Writer::connect);
            if (asking) {
              client.call("ASKING");
            }
            Object reply = client.call("CF.ADD", key, item);
            if (reply instanceof RespClient.Err err && err.text().startsWith("MOVED ")) {
              port = portOf(err.text());
              owners[ClusterReshardTest.slot(key)] = port;
              asking = false;
            } else if (reply instanceof RespClient.Err err && err.text().startsWith("ASK ")) {
              port = portOf(err.text());
              asking = true;
            } else if (reply instanceof RespClient.Err err && err.text().startsWith("TRYAGAIN")) {
              Thread.sleep(10);
            } else {
              assertEquals(1L, reply, key + " " + item);
              applied.merge(key, 1, Integer::sum);
              if (Long.valueOf(1).equals(client.call("WAIT", 1, 2000))) {
                confirmed.merge(key, 1, Integer::sum);
                items.computeIfAbsent(key, k -> new ArrayList<>()).add(item);
              }
              break;
            }
          }
        }
      } catch (Throwable t) {
        failure = t;
      }
    }

    private static RespClient connect(int port) {
      try {
        return new RespClient(port);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    private static int portOf(String redirect) {
      String address = redirect.split(" ")[2];
      return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    }
  }

  @Test
  void reshardUnderAWaitConfirmedWriter_nothingConfirmedLost_nothingAppliedTwice()
      throws Exception {
    Path cli = ClusterReshardTest.redisCli();
    Path dir = TestServers.freshDataDir();
    List<CuckooServer> nodes = new ArrayList<>();
    List<String> create = new ArrayList<>(List.of("--cluster", "create"));
    for (int i = 0; i < 6; i++) {
      CuckooServer node = ClusterReshardTest.startNode(dir, "n" + i, servers);
      nodes.add(node);
      create.add("127.0.0.1:" + node.port());
    }
    create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
    ClusterReshardTest.run(cli, create.toArray(new String[0]));
    ClusterReshardTest.awaitClusterOk(nodes);
    int[] owners = ClusterReshardTest.owners(nodes.get(0).port());
    int from = owners[0];
    int to = owners[16383];
    Writer writer = new Writer(owners.clone());
    Thread thread = new Thread(writer, "writer");
    thread.start();
    Thread.sleep(1000);
    ClusterReshardTest.run(
        cli,
        "--cluster",
        "reshard",
        "127.0.0.1:" + from,
        "--cluster-from",
        MigrateTest.call(from, "CLUSTER", "MYID"),
        "--cluster-to",
        MigrateTest.call(to, "CLUSTER", "MYID"),
        "--cluster-slots",
        Integer.toString(SLOTS),
        "--cluster-yes");
    Thread.sleep(1000);
    writer.stop.set(true);
    thread.join(30_000);
    if (writer.failure != null) {
      throw new AssertionError("the writer failed", writer.failure);
    }
    int[] after = ClusterReshardTest.owners(to);
    for (Map.Entry<String, List<String>> filter : writer.items.entrySet()) {
      int owner = after[ClusterReshardTest.slot(filter.getKey())];
      for (String item : filter.getValue()) {
        assertEquals("1", MigrateTest.call(owner, "CF.EXISTS", filter.getKey(), item), item);
      }
      String inserted =
          MigrateTest.info(owner, filter.getKey()).stream()
              .filter(field -> field.startsWith("Number of items inserted="))
              .findFirst()
              .orElseThrow();
      assertEquals(
          "Number of items inserted=" + writer.applied.get(filter.getKey()),
          inserted,
          filter.getKey() + ": each add applied once");
    }
    assertTrue(
        writer.confirmed.size() == FILTERS, "every filter written: " + writer.confirmed.size());
  }
}
