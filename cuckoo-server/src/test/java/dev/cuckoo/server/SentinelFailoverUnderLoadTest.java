package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failover by real Redis Sentinels (Debian's redis-sentinel): a master and two replicas, each a
 * cuckoo-server in its own JVM, three sentinels, and a client writing through Sentinel's idea of
 * the master, each batch confirmed by {@code WAIT 1}. The master is killed with SIGKILL under that
 * load: a replica must be promoted, the other must follow it, every WAIT-confirmed write must be on
 * the new master, a transaction must be there whole, a key whose expiry passed must be gone, and
 * the old master, restarted, must rejoin as a replica and catch up.
 */
class SentinelFailoverUnderLoadTest {
  private static final String MASTER = "mymaster";
  private static final int BATCH = 50;

  @TempDir Path dir;

  /** Writes batches of new items, each confirmed by WAIT 1, following the master Sentinel names. */
  private static final class Writer implements Runnable {
    private final SentinelCluster sentinels;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<String> confirmed = new ArrayList<>();
    private final int firstMaster;
    // when a batch written to another server than the first master was first confirmed
    private final AtomicLong confirmedElsewhereNanos = new AtomicLong();
    private volatile Throwable failure;
    private long next;

    Writer(SentinelCluster sentinels, int firstMaster) {
      this.sentinels = sentinels;
      this.firstMaster = firstMaster;
    }

    @Override
    public void run() {
      try {
        while (!stop.get()) {
          String address = sentinels.masterAddress(0);
          int port = Integer.parseInt(address.substring(address.indexOf(':') + 1));
          try (RespClient client = new RespClient(port)) {
            while (!stop.get()) {
              if (writeBatch(client) && port != firstMaster) {
                confirmedElsewhereNanos.compareAndSet(0, System.nanoTime());
              }
            }
          } catch (IOException lost) {
            // the master died or refused: ask Sentinel again shortly
            Thread.sleep(50);
          }
        }
      } catch (Throwable e) {
        failure = e;
      }
    }

    /** Writes one batch; returns true if WAIT confirmed it. */
    private boolean writeBatch(RespClient client) throws IOException {
      List<String> batch = new ArrayList<>();
      for (int i = 0; i < BATCH; i++) {
        String item = "item" + next++;
        batch.add(item);
        client.send("CF.ADD", "load", item);
      }
      client.send("WAIT", 1, 1000);
      boolean written = true;
      for (int i = 0; i < BATCH; i++) {
        written &= Long.valueOf(1).equals(client.read());
      }
      Object acks = client.read();
      if (written && acks instanceof Long && (Long) acks >= 1) {
        synchronized (confirmed) {
          confirmed.addAll(batch);
        }
        return true;
      }
      if (!written) {
        // a READONLY or a refused write: this server is no longer the master
        throw new IOException("batch refused");
      }
      return false;
    }

    List<String> stop() throws Throwable {
      stop.set(true);
      if (failure != null) {
        throw failure;
      }
      synchronized (confirmed) {
        return new ArrayList<>(confirmed);
      }
    }

    int confirmedCount() {
      synchronized (confirmed) {
        return confirmed.size();
      }
    }
  }

  private static long missing(int port, List<String> items) throws IOException {
    long missing = 0;
    try (RespClient client = new RespClient(port)) {
      for (int from = 0; from < items.size(); from += 1000) {
        List<Object> command = new ArrayList<>(List.of("CF.MEXISTS", "load"));
        command.addAll(items.subList(from, Math.min(items.size(), from + 1000)));
        for (Object answer : (List<?>) client.call(command.toArray())) {
          missing += Long.valueOf(1).equals(answer) ? 0 : 1;
        }
      }
    }
    return missing;
  }

  @Test
  void masterKilled_underWaitConfirmedLoad_replicaPromotedNothingLostOldMasterRejoins()
      throws Throwable {
    ChildServer master = ChildServer.startNamed(dir, "a");
    int masterPort = master.port();
    String replicaOf = "127.0.0.1 " + masterPort;
    List<ChildServer> servers = new ArrayList<>(List.of(master));
    try (ChildServer b = ChildServer.startNamed(dir, "b", "--replicaof", replicaOf);
        ChildServer c = ChildServer.startNamed(dir, "c", "--replicaof", replicaOf);
        SentinelCluster sentinels =
            SentinelCluster.start(3, MASTER, masterPort, 2, SentinelCluster.Timing.FAST)) {
      sentinels.awaitReplicasAndPeers(2, Duration.ofSeconds(40));
      try (RespClient client = new RespClient(masterPort)) {
        assertEquals(new RespClient.Simple("OK"), client.call("CF.RESERVE", "load", 4_000_000));
        client.call("MULTI");
        client.call("CF.ADD", "tx", "a");
        client.call("CF.ADD", "tx", "b");
        client.call("PEXPIRE", "tx", 3_600_000);
        assertEquals(List.of(1L, 1L, 1L), client.call("EXEC"));
        client.call("CF.ADD", "expiring", "x");
        client.call("PEXPIRE", "expiring", 1500);
        assertEquals(2L, client.call("WAIT", 2, 5000));
      }
      Writer writer = new Writer(sentinels, masterPort);
      Thread thread = new Thread(writer, "sentinel-writer");
      thread.start();
      Thread.sleep(3000);
      int beforeKill = writer.confirmedCount();
      long killed = System.nanoTime();
      master.kill();
      sentinels.await(
          Duration.ofSeconds(30),
          "the sentinels name a new master",
          () -> !sentinels.masterAddress(0).equals("127.0.0.1:" + masterPort));
      double switchSeconds = (System.nanoTime() - killed) / 1e9;
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (writer.confirmedElsewhereNanos.get() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      double writableSeconds = (writer.confirmedElsewhereNanos.get() - killed) / 1e9;
      Thread.sleep(2000);
      List<String> confirmed = writer.stop();
      thread.join(10_000);
      String address = sentinels.masterAddress(0);
      int newMaster = Integer.parseInt(address.substring(address.indexOf(':') + 1));
      long lost = missing(newMaster, confirmed);
      System.out.printf(
          "SentinelFailoverUnderLoadTest: %d WAIT-confirmed writes (%d before the kill), %d lost;"
              + " sentinels switched after %.1f s, writes confirmed again after %.1f s%n",
          confirmed.size(), beforeKill, lost, switchSeconds, writableSeconds);
      assertTrue(beforeKill > 0, "no write was confirmed before the kill");
      assertTrue(confirmed.size() > beforeKill, "no write was confirmed after the failover");
      assertEquals(0, lost, "WAIT-confirmed writes missing on the new master " + address);
      try (RespClient client = new RespClient(newMaster)) {
        assertEquals(List.of(1L, 1L), client.call("CF.MEXISTS", "tx", "a", "b"));
        assertTrue((Long) client.call("PTTL", "tx") > 0, "the transaction's expiry was lost");
        assertEquals(0L, client.call("EXISTS", "expiring"));
      }
      int follower = newMaster == b.port() ? c.port() : b.port();
      ReplicaState.awaitInSync(newMaster, follower, 30_000);
      assertEquals(0, missing(follower, confirmed), "the other replica lacks confirmed writes");

      // the old master comes back on its address and must rejoin as a replica
      ChildServer restarted =
          ChildServer.startNamed(dir, "a", "--port", Integer.toString(masterPort));
      servers.add(restarted);
      sentinels.await(
          Duration.ofSeconds(60),
          "the old master rejoins as a replica of the new one",
          () -> "slave".equals(ReplicaState.info(masterPort, "role")));
      ReplicaState.awaitInSync(newMaster, masterPort, 30_000);
      assertEquals(0, missing(masterPort, confirmed), "the old master lacks confirmed writes");
    } finally {
      for (ChildServer server : servers) {
        server.close();
      }
    }
  }
}
