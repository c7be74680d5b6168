package dev.cuckoo.server.command;

import dev.cuckoo.server.replication.Replication;
import dev.cuckoo.server.session.ClientBuffers;
import dev.cuckoo.server.session.ClientRegistry;
import dev.cuckoo.server.session.Session;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The clients' buffers as INFO adds them up: {@code mem_clients_normal} and {@code
 * mem_clients_slaves} (running totals of each client's {@code tot-mem}, refreshed once a second per
 * client by {@link ClientsCron}, as Redis's updateClientMemoryUsage), and {@code
 * client_recent_max_input_buffer} / {@code client_recent_max_output_buffer} (the largest seen in
 * the last seconds, kept in a ring of per-second slots as Redis's {@code ClientsPeakMemInput} and
 * {@code ClientsPeakMemOutput}).
 */
public final class ClientMemory {
  /** Seconds the recent maxima cover, as Redis's CLIENTS_PEAK_MEM_USAGE_SLOTS. */
  static final int PEAK_SLOTS = 8;

  private final Supplier<Replication> replication;
  private final long[] inputPeaks = new long[PEAK_SLOTS];
  private final long[] outputPeaks = new long[PEAK_SLOTS];
  private final AtomicLong normalBytes = new AtomicLong();
  private final AtomicLong replicaBytes = new AtomicLong();

  /**
   * Creates the accounting.
   *
   * @param replication the server's replication (for replicas' stream bytes), or null before it
   *     starts
   */
  ClientMemory(Supplier<Replication> replication) {
    this.replication = replication;
  }

  /**
   * Returns a client's {@code omem}: the bytes handed to its connection and not yet written; for a
   * replica, the replication stream queued for it and not yet written, if that is more.
   */
  long outputBytes(ClientRegistry.Client client, ClientRegistry.Role role) {
    long channel = client.session().buffers().outputBytes();
    Replication stream = replication.get();
    if (role == ClientRegistry.Role.REPLICA && stream != null) {
      return Math.max(channel, stream.replicaOutputBytes(client.id()));
    }
    return channel;
  }

  /**
   * Empties the slot of the second after {@code nowMillis}, so that a slot starts from nothing when
   * its second comes (Redis's clientsCron, at every run).
   */
  synchronized void startSecond(long nowMillis) {
    int next = (slot(nowMillis) + 1) % PEAK_SLOTS;
    inputPeaks[next] = 0;
    outputPeaks[next] = 0;
  }

  private static int slot(long nowMillis) {
    return (int) ((nowMillis / 1000) % PEAK_SLOTS);
  }

  /**
   * Measures one client (on its event loop): its input and output join the current second's maxima,
   * its {@code tot-mem} replaces its last count in the totals.
   */
  void track(ClientRegistry.Client client, ClientRegistry.Role role, long nowMillis) {
    Session session = client.session();
    ClientBuffers buffers = session.buffers();
    if (buffers == ClientBuffers.NONE) {
      return;
    }
    long output = outputBytes(client, role);
    long waiting = buffers.replyBytes() + output;
    synchronized (this) {
      int slot = slot(nowMillis);
      inputPeaks[slot] = Math.max(inputPeaks[slot], buffers.inputBytes());
      outputPeaks[slot] = Math.max(outputPeaks[slot], waiting);
    }
    count(buffers, buffers.totalBytes(session, output), role == ClientRegistry.Role.REPLICA);
  }

  private void count(ClientBuffers buffers, long totalBytes, boolean replica) {
    long[] previous = buffers.recount(totalBytes, replica);
    (previous[1] == 1 ? replicaBytes : normalBytes).addAndGet(-previous[0]);
    (replica ? replicaBytes : normalBytes).addAndGet(totalBytes);
  }

  /** Takes a closed client out of the totals (on its event loop). */
  public void forget(Session session) {
    ClientBuffers buffers = session.buffers();
    if (buffers != ClientBuffers.NONE) {
      count(buffers, 0, false);
    }
  }

  /** Returns INFO's client_recent_max_input_buffer: the largest input of the last seconds. */
  synchronized long recentMaxInput() {
    return max(inputPeaks);
  }

  /** Returns INFO's client_recent_max_output_buffer: the largest output of the last seconds. */
  synchronized long recentMaxOutput() {
    return max(outputPeaks);
  }

  private static long max(long[] peaks) {
    long max = 0;
    for (long peak : peaks) {
      max = Math.max(max, peak);
    }
    return max;
  }

  /** Returns INFO's mem_clients_normal: the buffers of every client but replicas' links. */
  long normalBytes() {
    return normalBytes.get();
  }

  /** Returns INFO's mem_clients_slaves: the buffers of replicas' links, their stream included. */
  long replicaBytes() {
    return replicaBytes.get();
  }
}
