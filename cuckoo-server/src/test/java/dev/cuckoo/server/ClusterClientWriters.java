package dev.cuckoo.server;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.protocol.CommandArgs;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;

/**
 * Writers through the cluster clients users run, for failover tests: Jedis's {@code
 * RedisClusterClient}, Lettuce's {@code RedisClusterClient} (adaptive topology refresh) and
 * redis-py's {@code RedisCluster} (a child process running {@code redis_py_cluster_writer.py}).
 * Each adds new items with CF.ADD through its client, notes when each add was acknowledged, and
 * asks WAIT 1 of the key's master on the connection that wrote: an item whose WAIT answered 1 is
 * confirmed. Each WAIT's end, duration and answer are noted. Failures (a killed master, a stale
 * slot map) are noted and retried after a pause. Jedis sends WAIT to every master (Redis's command
 * tips for WAIT: all shards, smallest answer), the others to the key's master only.
 */
final class ClusterClientWriters implements AutoCloseable {
  /** One WAIT: when it was answered (epoch millis), how long it took and what it answered. */
  record Wait(long atMillis, long micros, long answer) {}

  /**
   * What WAITs answered between two instants: how many, how many answered 1, the median and the
   * longest duration in milliseconds (0 if none).
   */
  record WaitFigures(int count, int answeredOne, double medianMillis, double maxMillis) {
    @Override
    public String toString() {
      return String.format(
          "%d WAITs, %d answered 1, median %.2f ms, max %.2f ms",
          count, answeredOne, medianMillis, maxMillis);
    }
  }

  /**
   * What a writer saw: when its adds were acknowledged, which items were confirmed and each WAIT.
   */
  record Outcome(
      String client,
      List<Long> ackedMillis,
      List<ConfirmedWriter.Item> confirmed,
      List<Wait> waits) {
    /** Returns the first acknowledgement at or after {@code millis}, or -1 if there is none. */
    long firstAckAtOrAfter(long millis) {
      return ackedMillis.stream().filter(at -> at >= millis).min(Long::compare).orElse(-1L);
    }

    /** Returns the figures of the WAITs answered from {@code fromMillis} until {@code toMillis}. */
    WaitFigures waits(long fromMillis, long toMillis) {
      List<Long> micros = new ArrayList<>();
      int answeredOne = 0;
      for (Wait wait : waits) {
        if (wait.atMillis() >= fromMillis && wait.atMillis() < toMillis) {
          micros.add(wait.micros());
          if (wait.answer() == 1) {
            answeredOne++;
          }
        }
      }
      if (micros.isEmpty()) {
        return new WaitFigures(0, 0, 0, 0);
      }
      java.util.Collections.sort(micros);
      return new WaitFigures(
          micros.size(),
          answeredOne,
          micros.get(micros.size() / 2) / 1000.0,
          micros.get(micros.size() - 1) / 1000.0);
    }
  }

  /** One client's add and WAIT. */
  private interface Client extends AutoCloseable {
    void add(String key, String item) throws Exception;

    long waitOne(String key) throws Exception;

    @Override
    void close();
  }

  /** A thread writing through one Java client. */
  private static final class Writer implements Runnable {
    final String name;
    final Client client;
    final List<String> keys;
    final ConcurrentLinkedQueue<Long> acked = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<ConfirmedWriter.Item> confirmed = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Wait> waits = new ConcurrentLinkedQueue<>();
    final java.util.concurrent.ConcurrentHashMap<String, Integer> errors =
        new java.util.concurrent.ConcurrentHashMap<>();
    volatile boolean stopped;

    Writer(String name, Client client, List<String> keys) {
      this.name = name;
      this.client = client;
      this.keys = keys;
    }

    @Override
    public void run() {
      for (long sequence = 0; !stopped; sequence++) {
        String key = keys.get((int) (sequence % keys.size()));
        String item = name + "-" + sequence;
        try {
          client.add(key, item);
          acked.add(System.currentTimeMillis());
          long started = System.nanoTime();
          long answer = client.waitOne(key);
          waits.add(
              new Wait(
                  System.currentTimeMillis(),
                  TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - started),
                  answer));
          if (answer == 1) {
            confirmed.add(new ConfirmedWriter.Item(key, item));
          }
          pause(5);
        } catch (Exception e) {
          errors.merge(e.getClass().getSimpleName() + ": " + e.getMessage(), 1, Integer::sum);
          pause(50);
        }
      }
    }

    Outcome outcome() {
      System.out.println(name + " errors: " + errors);
      return new Outcome(
          name, new ArrayList<>(acked), new ArrayList<>(confirmed), new ArrayList<>(waits));
    }
  }

  private final List<Writer> writers = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final Process python;
  private final Path pythonOutput;
  private final Path pythonStop;

  /**
   * Starts the three writers on {@code keys} (all in one master's slots), with {@code seeds} the
   * client ports they learn the cluster from; redis-py's output goes to files in {@code dir}.
   */
  ClusterClientWriters(List<Integer> seeds, List<String> keys, Path dir) throws Exception {
    pythonOutput = dir.resolve("redis-py-writer.out");
    pythonStop = dir.resolve("redis-py-writer.stop");
    Path script = dir.resolve("redis_py_cluster_writer.py");
    try (InputStream in =
        ClusterClientWriters.class.getResourceAsStream("/redis_py_cluster_writer.py")) {
      Files.copy(in, script);
    }
    python =
        new ProcessBuilder(
                RedisPyTest.python().toString(),
                script.toString(),
                seeds.stream().map(String::valueOf).collect(Collectors.joining(",")),
                String.join(",", keys),
                pythonStop.toString())
            // redis-py's own complaints (tracebacks it ignores) apart from the writer's lines
            .redirectError(dir.resolve("redis-py-writer.err").toFile())
            .redirectOutput(pythonOutput.toFile())
            .start();
    try {
      writers.add(new Writer("jedis", jedis(seeds), keys));
      writers.add(new Writer("lettuce", lettuce(seeds.get(0)), keys));
    } catch (Exception | AssertionError e) {
      close();
      throw e;
    }
    for (Writer writer : writers) {
      Thread thread = new Thread(writer, writer.name + "-writer");
      threads.add(thread);
      thread.start();
    }
  }

  private static Client jedis(List<Integer> seeds) {
    Set<HostAndPort> nodes =
        seeds.stream().map(port -> new HostAndPort("127.0.0.1", port)).collect(Collectors.toSet());
    // short timeouts and retries: a call fails, and is tried again, rather than wait out the
    // failover inside the client
    RedisClusterClient cluster =
        RedisClusterClient.builder()
            .nodes(nodes)
            .clientConfig(
                DefaultJedisClientConfig.builder()
                    .connectionTimeoutMillis(1000)
                    .socketTimeoutMillis(2000)
                    .build())
            .maxAttempts(3)
            .maxTotalRetriesDuration(Duration.ofSeconds(2))
            .build();
    return new Client() {
      @Override
      public void add(String key, String item) {
        cluster.cfAdd(key, item);
      }

      @Override
      public long waitOne(String key) {
        // routed by the key to its master, on the pooled connection that wrote (one thread)
        return cluster.waitReplicas(key, 1, 300);
      }

      @Override
      public void close() {
        cluster.close();
      }
    };
  }

  private static Client lettuce(int seed) {
    io.lettuce.core.cluster.RedisClusterClient client =
        io.lettuce.core.cluster.RedisClusterClient.create(
            RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(seed)
                .withTimeout(Duration.ofSeconds(2))
                .build());
    client.setOptions(
        ClusterClientOptions.builder()
            // as the Jedis client's: a connection to a node that is gone fails within the
            // command timeout, and the writer tries again, rather than wait 10 s in connect
            .socketOptions(
                io.lettuce.core.SocketOptions.builder()
                    .connectTimeout(Duration.ofSeconds(2))
                    .build())
            .topologyRefreshOptions(
                // every adaptive trigger (MOVED, ASK, persistent reconnects, uncovered slot,
                // unknown node) is on by default since Lettuce 7; a periodic refresh as well, as
                // Lettuce's docs advise for failover, so a refresh that ran while the cluster
                // had not yet promoted the replica is followed by another
                ClusterTopologyRefreshOptions.builder()
                    .enablePeriodicRefresh(Duration.ofSeconds(1))
                    .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
                    .refreshTriggersReconnectAttempts(2)
                    .build())
            .build());
    StatefulRedisClusterConnection<String, String> connection = client.connect();
    StringCodec codec = StringCodec.UTF8;
    return new Client() {
      @Override
      public void add(String key, String item) {
        connection
            .sync()
            .dispatch(
                ClusterSlotsTest.Cf.ADD,
                new BooleanOutput<>(codec),
                new CommandArgs<>(codec).addKey(key).add(item));
      }

      @Override
      public long waitOne(String key) {
        // the slot's write connection is the one kept for the master's host and port
        RedisClusterNode master =
            connection.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
        return connection
            .getConnection(master.getUri().getHost(), master.getUri().getPort())
            .sync()
            .waitForReplication(1, 300);
      }

      @Override
      public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    };
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Waits until every Java writer has had a write acknowledged at or after {@code sinceMillis}, or
   * until {@code deadlineMillis} (both wall-clock): the writers are not stopped while a client may
   * still recover within the time the caller allows it, so a late recovery is measured, not cut
   * off.
   */
  void awaitAckedSince(long sinceMillis, long deadlineMillis) throws InterruptedException {
    for (int i = 0; i < writers.size(); i++) {
      Writer writer = writers.get(i);
      while (writer.acked.stream().noneMatch(at -> at >= sinceMillis)
          && System.currentTimeMillis() < deadlineMillis) {
        Thread.sleep(50);
      }
      if (writer.acked.stream().noneMatch(at -> at >= sinceMillis)) {
        // where a client that never recovered is waiting, for the failure's reader
        System.out.println(writer.name + " has not recovered; its writer thread is at:");
        for (StackTraceElement frame : threads.get(i).getStackTrace()) {
          System.out.println("    at " + frame);
        }
      }
    }
  }

  /** Returns the fewest items any writer has confirmed so far. */
  int fewestConfirmed() throws IOException {
    int fewest = pythonOutcome().confirmed().size();
    for (Writer writer : writers) {
      fewest = Math.min(fewest, writer.confirmed.size());
    }
    return fewest;
  }

  /** Returns what each writer saw (once {@link #close} has stopped them). */
  List<Outcome> outcomes() throws IOException {
    List<Outcome> outcomes = new ArrayList<>();
    for (Writer writer : writers) {
      outcomes.add(writer.outcome());
    }
    outcomes.add(pythonOutcome());
    return outcomes;
  }

  /**
   * redis-py's lines: "acked MILLIS", "waited MILLIS MICROS ANSWER", "confirmed KEY ITEM", "failed
   * MILLIS ERROR".
   */
  private Outcome pythonOutcome() throws IOException {
    List<Long> acked = new ArrayList<>();
    List<ConfirmedWriter.Item> confirmed = new ArrayList<>();
    List<Wait> waits = new ArrayList<>();
    String output = Files.readString(pythonOutput, StandardCharsets.UTF_8);
    // the last line may be still being written
    String complete = output.substring(0, output.lastIndexOf('\n') + 1);
    for (String line : complete.split("\n")) {
      String[] fields = line.split(" ");
      switch (fields[0]) {
        case "acked" -> acked.add(Long.parseLong(fields[1]));
        case "waited" ->
            waits.add(
                new Wait(
                    Long.parseLong(fields[1]),
                    Long.parseLong(fields[2]),
                    Long.parseLong(fields[3])));
        case "confirmed" -> confirmed.add(new ConfirmedWriter.Item(fields[1], fields[2]));
        case "failed", "" -> {}
        default -> throw new AssertionError("the redis-py writer printed: " + line);
      }
    }
    return new Outcome("redis-py", acked, confirmed, waits);
  }

  /** Stops every writer: the Java writers after their current write, redis-py by its stop file. */
  @Override
  public void close() {
    for (Writer writer : writers) {
      writer.stopped = true;
    }
    try {
      for (Thread thread : threads) {
        thread.join(15_000);
        if (thread.isAlive()) {
          throw new AssertionError(thread.getName() + " did not stop");
        }
      }
      Files.writeString(pythonStop, "stop");
      if (!python.waitFor(30, TimeUnit.SECONDS)) {
        throw new AssertionError("the redis-py writer did not stop");
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      for (Writer writer : writers) {
        writer.client.close();
      }
      python.destroyForcibly();
    }
  }
}
