package dev.cuckoo.server.session;

import dev.cuckoo.server.protocol.OutputLimitCheck;
import java.util.List;

/**
 * What one client's connection holds in buffers, as Redis's {@code catClientInfoString} reports it
 * in CLIENT LIST and CLIENT INFO ({@code qbuf}, {@code qbuf-free}, {@code argv-mem}, {@code
 * multi-mem}, {@code obl}, {@code oll}, {@code omem}, {@code tot-mem}) and as INFO adds it up. The
 * network layer implements the figures from its decoder, reply buffer and Netty channel (each
 * method says what it maps to); a client without a connection of its own (the link to this server's
 * master, a replay) has {@link #NONE}, all zeros.
 *
 * <p>Read only on the client's own event loop, like its session. Besides the figures it keeps the
 * client's state for the output buffer limit's soft timer and for INFO's running totals.
 */
public abstract class ClientBuffers {
  /** A client without buffers of its own: every figure 0. */
  public static final ClientBuffers NONE =
      new ClientBuffers() {
        @Override
        public long queryBytes() {
          return 0;
        }

        @Override
        public long queryFreeBytes() {
          return 0;
        }

        @Override
        public long argumentBytes() {
          return 0;
        }

        @Override
        public long replyBytes() {
          return 0;
        }

        @Override
        public long outputBlocks() {
          return 0;
        }

        @Override
        public long outputBytes() {
          return 0;
        }

        @Override
        public long allocatedBytes() {
          return 0;
        }

        @Override
        public byte[] queryHead(int max) {
          return new byte[0];
        }
      };

  /** What Redis adds per queued argument to multi-mem beside its bytes: a pointer. */
  private static final int QUEUED_ARGUMENT_OVERHEAD = 8;

  private final OutputLimitCheck outputLimit = new OutputLimitCheck();
  private List<CommandRef> countedQueue;
  private int countedCommands;
  private long countedMultiBytes;
  private long countedTotalBytes;
  private boolean countedAsReplica;

  /** For subclasses. */
  protected ClientBuffers() {}

  /**
   * Returns {@code qbuf}: the bytes received and not yet run as commands — unparsed input, a bulk
   * string still arriving, and requests decoded but waiting while the connection is blocked.
   */
  public abstract long queryBytes();

  /** Returns {@code qbuf-free}: the room left in what holds the received input. */
  public abstract long queryFreeBytes();

  /**
   * Returns {@code argv-mem}: the bytes of the arguments of the command being run, or of those
   * already whole of a request still arriving (Redis's {@code argv_len_sum}).
   */
  public abstract long argumentBytes();

  /**
   * Returns {@code obl}: reply bytes built and not yet handed to the connection (Redis's reply
   * buffer {@code bufpos}).
   */
  public abstract long replyBytes();

  /**
   * Returns {@code oll}: the writes handed to the connection and not yet written to the socket
   * (Redis's reply list length).
   */
  public abstract long outputBlocks();

  /**
   * Returns {@code omem}: the bytes handed to the connection and not yet written to the socket
   * (Redis's reply list bytes).
   */
  public abstract long outputBytes();

  /**
   * Returns what the connection has allocated for its input and output beyond {@link #outputBytes}:
   * input buffers' capacity, and reply bytes built.
   */
  public abstract long allocatedBytes();

  /** Returns up to {@code max} bytes from the start of the unprocessed input. */
  public abstract byte[] queryHead(int max);

  /**
   * Returns {@code multi-mem}: the bytes of the commands queued since MULTI, their arguments' bytes
   * and a pointer's 8 bytes per argument as Redis counts them (queueMultiCommand); 0 outside one.
   * Counted incrementally, as commands only join the queue until it is taken.
   */
  public final long multiBytes(Session session) {
    List<CommandRef> queue = session.queued();
    if (queue != countedQueue || queue == null || queue.size() < countedCommands) {
      countedQueue = queue;
      countedCommands = 0;
      countedMultiBytes = 0;
    }
    if (queue != null) {
      for (int i = countedCommands; i < queue.size(); i++) {
        for (byte[] arg : queue.get(i).args()) {
          countedMultiBytes += arg.length + QUEUED_ARGUMENT_OVERHEAD;
        }
      }
      countedCommands = queue.size();
    }
    return countedMultiBytes;
  }

  /**
   * Returns the output bytes waiting for the client: reply bytes built ({@code obl}) and those
   * handed to the connection ({@code omem}). What the output buffer limit and INFO's
   * client_recent_max_output_buffer measure.
   */
  public final long waitingOutputBytes() {
    return replyBytes() + outputBytes();
  }

  /**
   * Returns the input the client holds, as Redis's clientsCronTrackExpansiveClients measures it for
   * client_recent_max_input_buffer: the query buffer with its free room, and the arguments.
   */
  public final long inputBytes() {
    return queryBytes() + queryFreeBytes() + argumentBytes();
  }

  /**
   * Returns {@code tot-mem}: every buffer byte counted for the client — input allocated, arguments,
   * queued MULTI commands, reply bytes built and output not yet written ({@code output}, which for
   * a replica includes its stream).
   */
  public final long totalBytes(Session session, long output) {
    return allocatedBytes() + argumentBytes() + multiBytes(session) + output;
  }

  /** Returns the check of the output buffer limit's soft timer for this client. */
  public final OutputLimitCheck outputLimit() {
    return outputLimit;
  }

  /**
   * Records the total counted in INFO for this client and returns what it replaces: {@code
   * [previous bytes, 1 if they were a replica's]}.
   */
  public final long[] recount(long totalBytes, boolean replica) {
    long[] previous = {countedTotalBytes, countedAsReplica ? 1 : 0};
    countedTotalBytes = totalBytes;
    countedAsReplica = replica;
    return previous;
  }
}
