package dev.cuckoo.server.replication;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

/**
 * A replica as its master sees it: the connection it sent PSYNC on, what it announced (REPLCONF
 * listening-port, ip-address) and acknowledged (REPLCONF ACK, with FACK), and its place in the
 * stream.
 *
 * <p>Everything sent to it passes through one outbox drained by a task on the connection's event
 * loop, so bytes leave in the order they were queued whatever thread queued them. While a full sync
 * is being prepared the stream's records wait in a pending queue and follow the transfer.
 */
final class Peer {
  /** Where the replica is in its synchronisation, named as INFO's {@code state=} prints it. */
  enum State {
    WAIT_BGSAVE("wait_bgsave"),
    SEND_BULK("send_bulk"),
    ONLINE("online");

    final String text;

    State(String text) {
      this.text = text;
    }
  }

  private static final System.Logger LOGGER = System.getLogger(Peer.class.getName());

  private final java.util.concurrent.atomic.AtomicLong unsent =
      new java.util.concurrent.atomic.AtomicLong();

  final long clientId;
  final Channel channel;
  final String peerIp;
  volatile int listeningPort;

  /** The replica reads a compressed transfer (it announced {@code REPLCONF capa lz4}). */
  volatile boolean lz4;

  volatile String announcedIp;
  volatile State state;

  /** True from the stream's cut (or +CONTINUE) on: the stream's records are queued for it. */
  volatile boolean receiving;

  volatile long ackOffset;

  /** The stream offset the replica reported its own log forced to disk (REPLCONF ACK … FACK). */
  volatile long fackOffset;

  volatile long ackMillis = System.currentTimeMillis();

  private final ArrayDeque<Object> pending = new ArrayDeque<>();
  private final ArrayDeque<Object> outbox = new ArrayDeque<>();
  private final java.util.Map<Object, java.util.function.Consumer<Boolean>> afterWrite =
      new java.util.IdentityHashMap<>();
  private final Runnable drainTask = this::drain;
  private boolean live;
  private boolean drainScheduled;
  private long queuedBytes;

  private final dev.cuckoo.server.protocol.Traffic traffic;
  private final java.util.function.Supplier<dev.cuckoo.server.config.OutputBufferLimit> limit;
  private final dev.cuckoo.server.protocol.OutputLimitCheck limitCheck =
      new dev.cuckoo.server.protocol.OutputLimitCheck();

  /**
   * Creates a replica's state.
   *
   * @param clientId the client id of its connection
   * @param channel its connection
   * @param peerIp the connection's peer address
   * @param traffic where the stream's bytes and limit disconnections are counted
   * @param limit the output buffer limit of replicas, read at each check
   */
  Peer(
      long clientId,
      Channel channel,
      String peerIp,
      dev.cuckoo.server.protocol.Traffic traffic,
      java.util.function.Supplier<dev.cuckoo.server.config.OutputBufferLimit> limit) {
    this.clientId = clientId;
    this.channel = channel;
    this.peerIp = peerIp;
    this.traffic = traffic;
    this.limit = limit;
  }

  /** Returns the address INFO and ROLE print: the announced one, else the connection's peer. */
  String ip() {
    String announced = announcedIp;
    return announced != null ? announced : peerIp;
  }

  /** Returns "ip:port" for log messages. */
  String name() {
    return ip() + ":" + listeningPort;
  }

  /**
   * Queues stream bytes (the caller's reference passes to this replica): sent now if the replica is
   * live, else after its transfer. A replica whose unwritten stream passes
   * client-output-buffer-limit replica (not reading, or a transfer slower than the writes) is
   * disconnected, as Redis does; it then resyncs.
   */
  synchronized void stream(ByteBuf buf) {
    if (closedOverLimit()) {
      buf.release();
      return;
    }
    int length = buf.readableBytes();
    unsent.addAndGet(length);
    if (live && outbox.isEmpty() && !drainScheduled && channel.eventLoop().inEventLoop()) {
      // on the connection's own loop with nothing queued before it (the stream of one event-loop
      // turn, see Replication): written now, without a task and another turn of the loop
      if (channel.isActive()) {
        send(buf, null);
        channel.flush();
      } else {
        buf.release();
      }
      return;
    }
    queuedBytes += length;
    if (live) {
      enqueue(buf);
    } else {
      pending.add(buf);
    }
  }

  /** Returns the stream bytes queued for the replica and not yet written to its socket. */
  long unsentBytes() {
    return unsent.get();
  }

  /**
   * Closes the connection if the unwritten stream passed the replicas' output buffer limit (hard,
   * or soft for longer than its seconds), logging Redis's line and counting it; returns true if the
   * connection is closed or closing for that. Also run once a second, so that a replica held above
   * the soft limit is closed while no new write comes.
   */
  synchronized boolean closedOverLimit() {
    if (!limitCheck.exceeded(limit.get(), unsent.get(), System.currentTimeMillis())) {
      return false;
    }
    if (channel.isOpen()) {
      LOGGER.log(
          System.Logger.Level.WARNING,
          "Client replica {0} scheduled to be closed ASAP for overcoming of output buffer limits.",
          name());
      traffic.outputLimitClosed();
      channel.close();
    }
    return true;
  }

  /** Queues a line or a transfer ahead of the pending stream (replies to PSYNC, the bulk). */
  synchronized void direct(Object message) {
    if (message instanceof ByteBuf buf) {
      unsent.addAndGet(buf.readableBytes());
    }
    enqueue(message);
  }

  /**
   * Queues a transfer ahead of the pending stream; {@code sent} runs once it is handed to the
   * socket in full ({@code true}) or will never be (the write failed or the connection closed:
   * {@code false}).
   */
  synchronized void transfer(Object region, java.util.function.Consumer<Boolean> sent) {
    afterWrite.put(region, sent);
    enqueue(region);
  }

  /** Queues a text line ending in CRLF ahead of the pending stream. */
  void line(String text) {
    direct(Unpooled.copiedBuffer(text + "\r\n", StandardCharsets.US_ASCII));
  }

  /** Sends the records that waited for the transfer, then every later one as it comes. */
  synchronized void goLive() {
    while (!pending.isEmpty()) {
      enqueue(pending.poll());
    }
    live = true;
  }

  /** Returns the stream bytes queued but not yet handed to the socket. */
  synchronized long queuedBytes() {
    return queuedBytes;
  }

  private void enqueue(Object message) {
    outbox.add(message);
    if (!drainScheduled) {
      drainScheduled = true;
      // the stream comes once per event-loop turn already gathered (see Replication)
      channel.eventLoop().execute(drainTask);
    }
  }

  private void drain() {
    ArrayDeque<Object> batch;
    java.util.Map<Object, java.util.function.Consumer<Boolean>> listeners;
    synchronized (this) {
      drainScheduled = false;
      batch = new ArrayDeque<>(outbox);
      outbox.clear();
      queuedBytes = 0;
      listeners =
          afterWrite.isEmpty() ? java.util.Map.of() : new java.util.IdentityHashMap<>(afterWrite);
      afterWrite.clear();
    }
    if (!channel.isActive()) {
      batch.forEach(ReferenceCountUtil::release);
      listeners.values().forEach(sent -> sent.accept(false));
      return;
    }
    for (Object message : batch) {
      send(message, listeners.get(message));
    }
    channel.flush();
  }

  /**
   * Writes one message (not flushed); once written, its bytes leave the unsent count and {@code
   * sent} (if any) runs; a failed write closes the connection.
   */
  private void send(Object message, java.util.function.Consumer<Boolean> sent) {
    long size = message instanceof ByteBuf buf ? buf.readableBytes() : 0;
    traffic.sentToReplica(
        message instanceof io.netty.channel.FileRegion region ? region.count() : size);
    ChannelFuture written = channel.write(message);
    if (sent != null) {
      written.addListener(done -> sent.accept(done.isSuccess()));
    }
    written.addListener(
        done -> {
          unsent.addAndGet(-size);
          if (!done.isSuccess()) {
            channel.close();
          }
        });
  }

  /** Drops whatever is still queued (the connection closed). */
  synchronized void discard() {
    pending.forEach(ReferenceCountUtil::release);
    pending.clear();
    outbox.forEach(ReferenceCountUtil::release);
    outbox.clear();
    afterWrite.values().forEach(sent -> sent.accept(false));
    afterWrite.clear();
  }
}
