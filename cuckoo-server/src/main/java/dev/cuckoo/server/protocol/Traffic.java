package dev.cuckoo.server.protocol;

import java.util.concurrent.atomic.LongAdder;

/**
 * The bytes the server received and sent, as INFO stats counts them: clients' requests and replies
 * ({@code total_net_input_bytes}, {@code total_net_output_bytes}) apart from replication's stream
 * (the bytes a replica reads from its master, {@code total_net_repl_input_bytes}, and those a
 * master sends its replicas, {@code total_net_repl_output_bytes}); and the clients closed for
 * passing a buffer limit ({@code client_query_buffer_limit_disconnections}, {@code
 * client_output_buffer_limit_disconnections}). Added to by every network thread, read by any.
 */
public final class Traffic {
  private final LongAdder input = new LongAdder();
  private final LongAdder output = new LongAdder();
  private final LongAdder replInput = new LongAdder();
  private final LongAdder replOutput = new LongAdder();
  private final LongAdder reads = new LongAdder();
  private final LongAdder writes = new LongAdder();
  private final LongAdder queryLimitClosed = new LongAdder();
  private final LongAdder outputLimitClosed = new LongAdder();

  /** Counts a client closed for passing client-query-buffer-limit. */
  public void queryLimitClosed() {
    queryLimitClosed.increment();
  }

  /** Counts a client (or replica) closed for passing client-output-buffer-limit. */
  public void outputLimitClosed() {
    outputLimitClosed.increment();
  }

  /**
   * Returns the clients closed for passing client-query-buffer-limit and those closed for passing
   * client-output-buffer-limit.
   */
  public long[] limitDisconnections() {
    return new long[] {queryLimitClosed.sum(), outputLimitClosed.sum()};
  }

  /** Counts bytes read from a client, in one read of its connection. */
  public void received(long bytes) {
    input.add(bytes);
    reads.increment();
  }

  /** Counts bytes written to a client, in one write to its connection. */
  public void sent(long bytes) {
    output.add(bytes);
    writes.increment();
  }

  /**
   * Returns the reads from and the writes to clients' connections that carried bytes (INFO's
   * total_reads_processed and total_writes_processed).
   */
  public long[] operations() {
    return new long[] {reads.sum(), writes.sum()};
  }

  /** Counts bytes a replica read from its master. */
  public void receivedFromMaster(long bytes) {
    replInput.add(bytes);
  }

  /** Counts bytes written to a replica. */
  public void sentToReplica(long bytes) {
    replOutput.add(bytes);
  }

  /** Returns the four counts: clients' input and output, replication input and output, in bytes. */
  public long[] totals() {
    return new long[] {input.sum(), output.sum(), replInput.sum(), replOutput.sum()};
  }

  /** Sets every count to 0 (CONFIG RESETSTAT). */
  public void reset() {
    input.reset();
    output.reset();
    replInput.reset();
    replOutput.reset();
    reads.reset();
    writes.reset();
    queryLimitClosed.reset();
    outputLimitClosed.reset();
  }
}
