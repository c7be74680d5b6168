package dev.cuckoo.server.migrate;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * MIGRATE's connections to its targets, kept as Redis keeps them ({@code cluster.c}'s migrate
 * socket cache): one per {@code host:port} as the command named them, at most {@value #MAX_CACHED}
 * (a new one past that closes one at random), closed once unused for more than {@value
 * #IDLE_MILLIS} ms ({@link #closeIdle}, run every second). A connection that failed is dropped, so
 * the next migration connects afresh. Two migrations to one target at the same time each get a
 * connection; the cache keeps one of them.
 *
 * <p>It also runs the migrations' network I/O on threads of its own ({@link #execute}), so no
 * network thread of the server waits for a target. Thread-safe.
 */
public final class TargetSockets implements AutoCloseable {
  /** The most connections kept (Redis's MIGRATE_SOCKET_CACHE_ITEMS). */
  public static final int MAX_CACHED = 64;

  /** How long an unused connection is kept, in milliseconds (Redis's 10 s). */
  public static final long IDLE_MILLIS = 10_000;

  /** The most migrations whose I/O runs at the same time; later ones queue. */
  private static final int THREADS = 16;

  private final LongSupplier clockMillis;
  private final Map<String, TargetConnection> idle = new HashMap<>();
  private int inUse;
  private final ThreadPoolExecutor workers;

  /** Creates an empty cache on the wall clock. */
  public TargetSockets() {
    this(System::currentTimeMillis);
  }

  /** Creates an empty cache whose idle times are read from {@code clockMillis}. */
  TargetSockets(LongSupplier clockMillis) {
    this.clockMillis = clockMillis;
    AtomicInteger threadCount = new AtomicInteger();
    workers =
        new ThreadPoolExecutor(
            THREADS,
            THREADS,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            task -> {
              Thread thread = new Thread(task, "migrate-" + threadCount.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    workers.allowCoreThreadTimeOut(true);
  }

  /** Returns the cache's name of a target: the host and port as the command gave them. */
  static String name(String host, String port) {
    return host + ":" + port;
  }

  /**
   * Takes the cached connection to the target, or connects (waiting at most {@code timeoutMillis});
   * give it back with {@link #giveBack} or {@link #drop}.
   *
   * @throws IOException if no socket can be made for the address (see {@link
   *     TargetConnection#open})
   */
  TargetConnection take(String host, String port, long timeoutMillis) throws IOException {
    String name = name(host, port);
    synchronized (this) {
      TargetConnection cached = idle.remove(name);
      if (cached != null) {
        cached.lastUseMillis(clockMillis.getAsLong());
        inUse++;
        return cached;
      }
    }
    TargetConnection opened = TargetConnection.open(host, parsePort(port), timeoutMillis);
    opened.lastUseMillis(clockMillis.getAsLong());
    synchronized (this) {
      inUse++;
    }
    return opened;
  }

  /** Reads a port as Redis's atoi does: leading digits, 0 when there are none. */
  private static int parsePort(String port) {
    long value = 0;
    int i = 0;
    boolean negative = port.startsWith("-");
    if (negative || port.startsWith("+")) {
      i++;
    }
    for (; i < port.length() && Character.isDigit(port.charAt(i)) && value < 1_000_000; i++) {
      value = value * 10 + (port.charAt(i) - '0');
    }
    return (int) (negative ? -value : value);
  }

  /** Gives back a connection that worked: kept for the next migration to the same target. */
  void giveBack(String host, String port, TargetConnection connection) {
    String name = name(host, port);
    TargetConnection evicted = null;
    synchronized (this) {
      inUse--;
      if (idle.containsKey(name)) {
        evicted = connection;
      } else {
        if (idle.size() >= MAX_CACHED) {
          // as Redis: a random one makes room
          List<String> names = new ArrayList<>(idle.keySet());
          String victim =
              names.get(java.util.concurrent.ThreadLocalRandom.current().nextInt(names.size()));
          evicted = idle.remove(victim);
        }
        idle.put(name, connection);
      }
    }
    if (evicted != null) {
      evicted.close();
    }
  }

  /** Closes a connection that failed: the next migration to its target connects afresh. */
  void drop(TargetConnection connection) {
    synchronized (this) {
      inUse--;
    }
    connection.close();
  }

  /** Closes the connections unused for more than {@link #IDLE_MILLIS} (Redis's serverCron). */
  public void closeIdle() {
    List<TargetConnection> closed = new ArrayList<>();
    long now = clockMillis.getAsLong();
    synchronized (this) {
      Iterator<TargetConnection> it = idle.values().iterator();
      while (it.hasNext()) {
        TargetConnection connection = it.next();
        if (now - connection.lastUseMillis() > IDLE_MILLIS) {
          it.remove();
          closed.add(connection);
        }
      }
    }
    closed.forEach(TargetConnection::close);
  }

  /** Returns the number of connections cached or in use (INFO's migrate_cached_sockets). */
  public synchronized int size() {
    return idle.size() + inUse;
  }

  /** Runs a migration's network I/O on a thread of the cache's. */
  public void execute(Runnable migration) {
    workers.execute(migration);
  }

  /** Closes every cached connection and stops the threads (the server stops). */
  @Override
  public void close() {
    workers.shutdownNow();
    List<TargetConnection> closed;
    synchronized (this) {
      closed = new ArrayList<>(idle.values());
      idle.clear();
    }
    closed.forEach(TargetConnection::close);
  }
}
