package dev.cuckoo.server.replication;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.config.Config;
import dev.cuckoo.server.config.Parameters;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.keyspace.Watches;
import dev.cuckoo.server.persist.Persistence;
import dev.cuckoo.server.persist.RecordApplier;
import dev.cuckoo.server.persist.RecordRules;
import dev.cuckoo.server.persist.StreamMark;
import dev.cuckoo.server.persist.Transaction;
import dev.cuckoo.server.persist.Transfer;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.rdb.ForeignTypes;
import io.netty.channel.Channel;
import io.netty.channel.DefaultFileRegion;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * This server's place in replication, as Redis 7/8 speak it: a master with its write stream,
 * backlog and replicas, or a replica with its link to a master.
 *
 * <p>As a master it encodes each record the write path announces as RESP commands (SELECT when the
 * database changes, a transaction as MULTI … EXEC), counts the bytes in {@code master_repl_offset},
 * keeps the last {@code repl-backlog-size} of them for partial resyncs and sends them to every
 * replica. A full sync cuts the stream, writes a fuzzy transfer (see {@link Transfer}) while
 * commands go on, and sends it followed by the records from the cut.
 *
 * <p>As a replica it follows its master through a {@link MasterLink}; the bytes it applies extend
 * its own offset and backlog, so after promotion (REPLICAOF NO ONE) the other replicas continue
 * with {@code +CONTINUE}: the old replication id is kept as replid2 up to second_repl_offset
 * (PSYNC2).
 */
public final class Replication implements WriteStream {
  private static final System.Logger LOGGER = System.getLogger(Replication.class.getName());
  private static final String NO_ID = "0".repeat(40);
  private static final byte[][] PING = {"PING".getBytes(StandardCharsets.US_ASCII)};
  private static final byte[][] GETACK = {
    "REPLCONF".getBytes(StandardCharsets.US_ASCII),
    "GETACK".getBytes(StandardCharsets.US_ASCII),
    "*".getBytes(StandardCharsets.US_ASCII)
  };
  private static final byte[][] MULTI = {"MULTI".getBytes(StandardCharsets.US_ASCII)};
  private static final byte[][] EXEC = {"EXEC".getBytes(StandardCharsets.US_ASCII)};
  private static final byte[][] SELECT = {"SELECT".getBytes(StandardCharsets.US_ASCII)};

  /** How the replica applies its master's stream to the live keyspace (the command table). */
  public interface Applier {
    /**
     * Runs one command of the master's stream in database {@code db}: a write is logged after
     * {@code mark}; SELECT and PING log nothing and pass a null mark.
     */
    void apply(int db, byte[][] args, StreamMark mark);

    /**
     * Runs a transaction's writes as one (all keys locked, one record after {@code mark}); {@code
     * db} is its first.
     */
    void applyTransaction(int db, List<Transaction.Write> writes, StreamMark mark);

    /**
     * The link's stream started on a connection (after a full transfer was swapped in, or on
     * +CONTINUE): from now until {@link #linkDown} the link is a client of this server (CLIENT LIST
     * flag M).
     *
     * @param master the master's address
     * @param local this end of the connection
     * @param resumed true if the link continued where its last connection stopped (the client
     *     resumes, as Redis's cached master); false after a full transfer or a new REPLICAOF
     * @param close closes the connection (CLIENT KILL); the link then reconnects
     * @return the client's id, to pass to {@link #linkDown}
     */
    long linkUp(SocketAddress master, SocketAddress local, boolean resumed, Runnable close);

    /**
     * The link's connection ended: it is no longer a client. Nothing happens if the client {@code
     * id} is no longer the registered one (a link being replaced ended after its successor
     * started).
     */
    void linkDown(long id);

    /** Sets the stream mark in force without a record (see {@link StreamMark}). */
    void markStream(StreamMark mark);

    /**
     * Returns true if this server has the command {@code name}: a Redis master's commands it does
     * not have write types it does not hold, and are skipped.
     */
    default boolean knows(byte[] name) {
      return true;
    }

    /**
     * Logs {@code mark} at once and forces the log to disk, whatever appendfsync says (a promoted
     * master's new replication id, before any replica hears of it).
     *
     * @return false if the log could not be forced
     */
    boolean markStreamDurably(StreamMark mark);

    /**
     * Writes what the applied commands logged (and forces it, with appendfsync always): called when
     * no more of the stream is waiting, so one log write covers a burst.
     */
    void flush();

    /**
     * Holds clients' writes back ({@code on}) while a coordinated failover waits for its replica,
     * or lets them run again: the failover purpose of the server's one client pause (Redis's
     * PAUSE_DURING_FAILOVER; CLIENT UNPAUSE does not end it).
     */
    void pauseWrites(boolean on);
  }

  /**
   * The server parts replication works with.
   *
   * @param traffic where the bytes of the replication stream are counted (INFO stats)
   * @param paused true while CLIENT PAUSE holds clients back: the master then sends its replicas no
   *     PING or GETACK, so that its offset stands still (Redis's PAUSE_ACTION_REPLICA)
   * @param refusals where the role, the link's state and the replicas' acknowledgements are pushed
   *     for the write path's refusals (READONLY, NOREPLICAS, MASTERDOWN)
   */
  public record Parts(
      Config config,
      Keyspace keyspace,
      Watches watches,
      RecordRules rules,
      Function<Keyspace, RecordApplier> replayers,
      Supplier<Persistence> persistence,
      IntSupplier port,
      dev.cuckoo.server.protocol.Traffic traffic,
      java.util.function.BooleanSupplier paused,
      dev.cuckoo.server.persist.WriteRefusals refusals) {}

  private final Parts parts;
  private final ReplicationSettings settings;
  private final ScheduledExecutorService cron;
  private final ExecutorService transfers;
  private final Map<Long, Peer> peers = new ConcurrentHashMap<>();
  private final List<Waiter> waiters = new CopyOnWriteArrayList<>();
  private volatile Applier applier;
  // a Redis master's keys (last full transfer) and writes of types this server does not hold
  private final ForeignTypes foreignKeys = new ForeignTypes();
  private final ForeignTypes foreignWrites = new ForeignTypes();
  private final java.util.concurrent.atomic.AtomicLongArray syncs =
      new java.util.concurrent.atomic.AtomicLongArray(3);

  // the stream, guarded by this
  private String replid = newId();
  private String replid2 = NO_ID;
  // true when replid was made here (promotion, restart), false when a master announced it
  private boolean ownId = true;
  private long secondReplOffset = -1;
  private long offset;
  private Backlog backlog;
  private int streamDb = -1;
  private volatile MasterLink link;
  private boolean ackRequested;
  private int restoredDb;
  // stream bytes not yet handed to the replicas, and how many replicas receive them
  private final Resp.Output unsent = new Resp.Output(1 << 16);
  private Peer[] receivers = {};
  private boolean flushScheduled;
  // serializes the pushes to the write path's refusals: each reads the state after its change
  private final Object refusalsLock = new Object();

  // how far the replica's own log is on disk, in its master's stream (the FACK of its ACKs)
  private final FsyncedOffset fsyncedOffset = new FsyncedOffset();

  // a coordinated failover (FAILOVER), guarded by this, and its checks every 100 ms
  private final Failover failover = new Failover();
  private java.util.concurrent.ScheduledFuture<?> failoverChecks;

  /**
   * A WAIT or WAITAOF that is not satisfied yet: the client's id (CLIENT UNBLOCK), the stream
   * offset after the client's last write and, for WAITAOF ({@code fsynced}), the number of its log
   * record and the local fsyncs wanted.
   */
  private record Waiter(
      long clientId,
      long offset,
      long lsn,
      int local,
      int replicas,
      boolean fsynced,
      CompletableFuture<Acks> done) {}

  /**
   * What a WAIT or WAITAOF reached.
   *
   * @param local 1 if this server's log has forced the client's last write, else 0; -1 when WAITAOF
   *     asked for it and appendonly was turned off meanwhile (Redis then answers an error)
   * @param replicas the replicas that acknowledged it (WAITAOF: that forced it to their logs)
   */
  public record Acks(int local, int replicas) {}

  /** Creates replication in the master role; {@link #start} follows {@code --replicaof}. */
  public Replication(Parts parts) {
    this.parts = parts;
    this.settings = new ReplicationSettings(parts.config());
    this.cron = Executors.newSingleThreadScheduledExecutor(daemons("replication-cron"));
    this.transfers = Executors.newCachedThreadPool(daemons("replication-transfer"));
    pushRole();
  }

  /**
   * Pushes the role to the write path's refusals: a master, or a replica whose link to its master
   * is connected or not (after the link or its state changed).
   */
  void pushRole() {
    synchronized (refusalsLock) {
      MasterLink current = link;
      parts
          .refusals()
          .role(current != null, current != null && current.state == MasterLink.State.CONNECTED);
    }
  }

  /**
   * Pushes the last acknowledgement time of each replica online now to the write path's refusals
   * (min-replicas-to-write), after a replica came online, acknowledged or went.
   */
  private void pushAcks() {
    synchronized (refusalsLock) {
      long[] acks = new long[peers.size()];
      int online = 0;
      for (Peer peer : peers.values()) {
        if (peer.state == Peer.State.ONLINE) {
          if (online == acks.length) {
            acks = java.util.Arrays.copyOf(acks, online + 1);
          }
          acks[online++] = peer.ackMillis;
        }
      }
      parts.refusals().onlineAcks(java.util.Arrays.copyOf(acks, online));
    }
  }

  private static java.util.concurrent.ThreadFactory daemons(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }

  private static String newId() {
    byte[] bytes = new byte[20];
    new SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /** Returns where the replication stream's bytes are counted. */
  dev.cuckoo.server.protocol.Traffic traffic() {
    return parts.traffic();
  }

  /** Returns the replication parameters as they stand now. */
  ReplicationSettings settings() {
    return settings;
  }

  /** Sets how the master's stream is applied (the command table, built after this). */
  public void applier(Applier applier) {
    this.applier = applier;
  }

  /** How a replica's connection to its master is secured (TLS with tls-replication). */
  @FunctionalInterface
  public interface LinkSecurity {
    /**
     * Returns the socket to talk to the master through: {@code connected} itself, or a TLS socket
     * over it with the handshake done.
     *
     * @throws IOException if the handshake fails
     */
    java.net.Socket secure(java.net.Socket connected, String host, int port) throws IOException;
  }

  private volatile LinkSecurity linkSecurity = (connected, host, port) -> connected;

  /** Sets how links to a master are secured (by default they are not). */
  public void linkSecurity(LinkSecurity security) {
    this.linkSecurity = security;
  }

  /** Returns how links to a master are secured. */
  LinkSecurity linkSecurity() {
    return linkSecurity;
  }

  /** Starts the once-a-second work and, with {@code --replicaof}, the link to the master. */
  public void start() {
    removeLeftoverTransfers();
    cron.scheduleAtFixedRate(this::everySecond, 1, 1, TimeUnit.SECONDS);
    String replicaOf = parts.config().get(Parameters.REPLICAOF);
    if (replicaOf != null) {
      Persistence persistence = parts.persistence().get();
      StreamMark mark = persistence == null ? null : persistence.recoveredMark();
      if (mark != null && mark.continuable()) {
        // the files hold the master's stream up to this offset: ask to continue from there
        synchronized (this) {
          replid = mark.replicationId();
          ownId = false;
          offset = mark.after();
          backlog = new Backlog(settings.backlogSize(), offset);
          restoredDb = mark.db();
        }
        LOGGER.log(
            Level.INFO,
            "the data holds the stream of replication id {0} up to offset {1}",
            replid,
            Long.toString(offset));
      }
      String[] hostPort = replicaOf.trim().split("\\s+");
      // a replica from the start was never a master: without a restored history it offers none
      // (PSYNC ? -1), as Redis, whose master then counts no failed partial resynchronization
      follow(hostPort[0], Integer.parseInt(hostPort[1]), false);
    } else {
      Persistence persistence = parts.persistence().get();
      StreamMark mark = persistence == null ? null : persistence.recoveredMark();
      if (mark != null && mark.continuable()) {
        restartedMaster(mark);
      }
    }
  }

  /**
   * A master restarted from files that hold its stream (or a master's it followed) up to the mark:
   * as Redis 7 does with the replication id and offset of its RDB file, it keeps that history as
   * replid2 up to second_repl_offset and continues the offset under a new id. Its replicas then
   * continue with +CONTINUE, and so does this server if it is made a replica of one of them that
   * holds at least this history (PSYNC2).
   */
  private void restartedMaster(StreamMark mark) {
    synchronized (this) {
      replid2 = mark.replicationId();
      offset = mark.after();
      secondReplOffset = offset + 1;
      replid = newId();
      ownId = true;
      backlog = new Backlog(settings.backlogSize(), offset);
    }
    LOGGER.log(
        Level.INFO,
        "the data holds the stream of replication id {0} up to offset {1}: kept as the secondary"
            + " replication id; new replication id {2}",
        replid2,
        Long.toString(offset),
        replid);
  }

  /** Stops the link and the background work; closes replicas' connections. */
  public void close() {
    MasterLink current;
    synchronized (this) {
      current = link;
      link = null;
    }
    pushRole();
    if (current != null) {
      current.stop();
    }
    cron.shutdownNow();
    transfers.shutdownNow();
    for (Peer peer : peers.values()) {
      peer.channel.close();
    }
  }

  // ---------------------------------------------------------------- the stream (master)

  @Override
  public void record(int db, byte[][] args, StreamPosition position) {
    synchronized (this) {
      if (link != null || backlog == null) {
        // a replica sends what it applies as its master sent it; a master without replicas
        // ever attached keeps no stream (Redis creates the backlog with the first replica)
        position.set(offset, null);
        return;
      }
      int start = unsent.length();
      long before = offset;
      if (Transaction.isRecord(args)) {
        encodeTransaction(db, Transaction.decode(args));
      } else {
        select(db);
        unsent.command(args);
      }
      fed(start);
      position.set(offset, new StreamMark(replid, before, offset, streamDb));
    }
  }

  @Override
  public void record(
      int db, byte[][] record, List<Transaction.Write> stream, StreamPosition position) {
    synchronized (this) {
      if (link != null || backlog == null || record == null && receivers.length == 0) {
        // as record and propagate: messages alone no replica receives now are for nobody
        position.set(offset, null);
        return;
      }
      int start = unsent.length();
      long before = offset;
      if (stream.size() == 1) {
        Transaction.Write only = stream.get(0);
        if (!only.message) {
          select(only.db);
        }
        unsent.command(only.args);
      } else {
        encodeTransaction(db, stream);
      }
      fed(start);
      // the log's record leaves the messages out: its mark says where the stream really stands
      position.set(
          offset, record != null ? new StreamMark(replid, before, offset, streamDb) : null);
    }
  }

  /**
   * Encodes a transaction as MULTI, its writes (SELECT where the database changes) and messages in
   * order, EXEC (caller holds this). A message gets no SELECT: it is for every database.
   */
  private void encodeTransaction(int db, List<Transaction.Write> writes) {
    int first = db;
    for (Transaction.Write write : writes) {
      if (!write.message) {
        first = write.db;
        break;
      }
    }
    select(first);
    unsent.command(MULTI);
    for (Transaction.Write write : writes) {
      if (!write.message) {
        select(write.db);
      }
      unsent.command(write.args);
    }
    unsent.command(EXEC);
  }

  @Override
  public void propagate(byte[][] args) {
    synchronized (this) {
      if (link != null || receivers.length == 0) {
        // a replica forwards its master's stream as it came; a message no replica receives now
        // is for nobody later either, and must not move the offset of a master that has just
        // restarted or been promoted (its history would no longer be the one its replicas know)
        return;
      }
      // no SELECT: a message is for every database; the write path logs the next record's mark,
      // since this moved the stream without a record
      int start = unsent.length();
      unsent.command(args);
      fed(start);
    }
  }

  private void select(int db) {
    if (db != streamDb) {
      unsent.command(
          new byte[][] {SELECT[0], Integer.toString(db).getBytes(StandardCharsets.US_ASCII)});
      streamDb = db;
    }
  }

  /** Adds bytes to the stream: the offset, the backlog, every replica (caller holds this). */
  private void feed(byte[] bytes, int from, int length) {
    int start = unsent.length();
    unsent.append(bytes, from, length);
    fed(start);
  }

  /**
   * Counts the bytes encoded into {@link #unsent} from {@code start} in the offset and the backlog,
   * and has them sent to the replicas after this event-loop turn (caller holds this).
   */
  private void fed(int start) {
    int length = unsent.length() - start;
    offset += length;
    backlog.append(unsent.array(), start, length);
    if (receivers.length == 0) {
      unsent.truncate(0);
    } else if (!flushScheduled) {
      flushScheduled = true;
      afterThisTurn(flushTask);
    }
  }

  /**
   * Runs {@code task} on a replica's event loop once the loop has handled what it is handling now
   * (a whole turn's writes then go out together, as Redis writes to its replicas once per event
   * loop iteration).
   */
  private void afterThisTurn(Runnable task) {
    if (receivers.length == 0) {
      // no replica to send to: nothing waits for this turn
      flushScheduled = false;
      unsent.truncate(0);
      return;
    }
    io.netty.channel.EventLoop loop = receivers[0].channel.eventLoop();
    if (loop instanceof io.netty.channel.SingleThreadEventLoop single) {
      single.executeAfterEventLoopIteration(task);
    } else {
      loop.execute(task);
    }
  }

  private final Runnable flushTask = this::flushToReplicas;

  private synchronized void flushToReplicas() {
    flushScheduled = false;
    sendUnsent();
  }

  /**
   * Hands the encoded bytes to every receiving replica, one buffer shared by all (caller holds
   * this); called before a replica starts or stops receiving so each gets exactly its part.
   */
  private void sendUnsent() {
    if (unsent.length() == 0) {
      return;
    }
    if (receivers.length == 0) {
      unsent.truncate(0);
      return;
    }
    // one direct buffer for all: a heap buffer was copied into a direct one for each replica
    io.netty.buffer.ByteBuf shared = receivers[0].channel.alloc().directBuffer(unsent.length());
    shared.writeBytes(unsent.array(), 0, unsent.length());
    unsent.truncate(0);
    try {
      for (Peer peer : receivers) {
        peer.stream(shared.retainedDuplicate());
      }
    } finally {
      shared.release();
    }
  }

  /** Marks a replica as receiving the stream from the current offset on (caller holds this). */
  private void startReceiving(Peer peer) {
    sendUnsent();
    if (!peer.receiving) {
      peer.receiving = true;
      receivers = java.util.Arrays.copyOf(receivers, receivers.length + 1);
      receivers[receivers.length - 1] = peer;
    }
  }

  /** Sends a command that is not a write (PING, REPLCONF GETACK) to every replica. */
  private synchronized void feedCommand(byte[][] command) {
    if (link == null && backlog != null && !peers.isEmpty()) {
      int start = unsent.length();
      unsent.command(command);
      fed(start);
    }
  }

  private int goodReplicas() {
    return parts.refusals().goodReplicas(settings.minReplicasMaxLag());
  }

  // ---------------------------------------------------------------- replicas (master side)

  /** REPLCONF listening-port / ip-address / capa from a connection (before its PSYNC). */
  public void announce(long clientId, Channel channel, String option, String value) {
    Peer peer = peerOf(clientId, channel);
    if (option.equals("listening-port")) {
      peer.listeningPort = Integer.parseInt(value);
    } else if (option.equals("ip-address")) {
      peer.announcedIp = value;
    } else if (option.equals("capa") && value.equalsIgnoreCase(Transfer.CAPABILITY)) {
      peer.lz4 = true;
    }
  }

  private Peer peerOf(long clientId, Channel channel) {
    return peers.computeIfAbsent(
        clientId,
        id -> {
          String ip =
              channel.remoteAddress() instanceof InetSocketAddress address
                  ? address.getAddress().getHostAddress()
                  : "?";
          Peer peer = new Peer(id, channel, ip, parts.traffic(), settings::replicaOutputLimit);
          channel.closeFuture().addListener(closed -> forget(peer));
          return peer;
        });
  }

  private void forget(Peer peer) {
    synchronized (this) {
      if (peers.get(peer.clientId) == peer && peer.receiving) {
        sendUnsent();
        peer.receiving = false;
        receivers =
            java.util.Arrays.stream(receivers).filter(other -> other != peer).toArray(Peer[]::new);
      }
    }
    if (peers.remove(peer.clientId, peer)) {
      pushAcks();
      peer.discard();
      if (peer.state != null) {
        LOGGER.log(Level.INFO, "Connection with replica {0} lost.", peer.name());
      }
    }
  }

  /** Returns the bytes the backlog's ring takes (INFO's mem_replication_backlog), 0 without one. */
  public synchronized long backlogMemoryBytes() {
    return backlog == null ? 0 : backlog.size();
  }

  /**
   * Returns the replication stream bytes queued for the replica on this connection and not yet
   * written to its socket (its CLIENT LIST omem), 0 if the connection is no replica.
   */
  public long replicaOutputBytes(long clientId) {
    Peer peer = peers.get(clientId);
    return peer == null ? 0 : peer.unsentBytes();
  }

  /** Returns INFO's sync_full, sync_partial_ok and sync_partial_err. */
  public long[] syncCounts() {
    return new long[] {syncs.get(0), syncs.get(1), syncs.get(2)};
  }

  /** Returns true if the connection announced itself as a replica or asked for a sync. */
  public boolean hasReplica(long clientId) {
    return peers.containsKey(clientId);
  }

  /** Returns true if the connection is a replica being sent the stream (after PSYNC or SYNC). */
  public boolean isStreaming(long clientId) {
    Peer peer = peers.get(clientId);
    return peer != null && peer.state != null;
  }

  /**
   * REPLCONF ACK offset [FACK fsyncedOffset] from a replica: {@code fsyncedOffset} (-1 if absent)
   * is how far its own log is forced to disk (WAITAOF).
   */
  public void ack(long clientId, long ackOffset, long fsyncedOffset) {
    Peer peer = peers.get(clientId);
    if (peer == null || peer.state == null) {
      return;
    }
    if (ackOffset > peer.ackOffset) {
      peer.ackOffset = ackOffset;
    }
    if (fsyncedOffset > peer.fackOffset) {
      peer.fackOffset = fsyncedOffset;
    }
    peer.ackMillis = System.currentTimeMillis();
    pushAcks();
    checkWaiters();
    if (failover.state == Failover.State.WAITING_FOR_SYNC) {
      checkFailover();
    }
  }

  /**
   * Answers PSYNC (or SYNC, {@code replicationId} null) on a connection that becomes a replica:
   * {@code +CONTINUE} and the backlog from {@code requestedOffset} when it holds them, else {@code
   * +FULLRESYNC} and a transfer. Everything is written to the connection from here on.
   *
   * @return the error to answer instead (without the dash), or null
   */
  public String psync(long clientId, Channel channel, String replicationId, long requestedOffset) {
    if (failover.state != Failover.State.NONE) {
      // replicas do not sync with a master that is handing over to one of them
      return "NOMASTERLINK Can't SYNC while failing over";
    }
    if (link != null && link.state != MasterLink.State.CONNECTED) {
      return "NOMASTERLINK Can't SYNC while not connected with my master";
    }
    Peer peer = peerOf(clientId, channel);
    synchronized (this) {
      if (backlog == null) {
        backlog = new Backlog(settings.backlogSize(), offset);
      }
      if (replicationId != null && continues(replicationId, requestedOffset)) {
        byte[] missing = backlog.from(requestedOffset);
        peer.state = Peer.State.ONLINE;
        startReceiving(peer);
        peer.ackMillis = System.currentTimeMillis();
        pushAcks();
        peer.line("+CONTINUE " + replid);
        if (missing.length > 0) {
          peer.direct(io.netty.buffer.Unpooled.wrappedBuffer(missing));
        }
        peer.goLive();
        syncs.incrementAndGet(1);
        LOGGER.log(
            Level.INFO,
            "Partial resynchronization request from {0} accepted. Sending {1} bytes of"
                + " backlog starting from offset {2}.",
            peer.name(),
            Integer.toString(missing.length),
            Long.toString(requestedOffset));
        return null;
      }
      syncs.incrementAndGet(0);
      if (replicationId != null && !replicationId.equals("?")) {
        syncs.incrementAndGet(2);
        LOGGER.log(
            Level.INFO,
            "Partial resynchronization not accepted: replication id {0} offset {1} is not in this"
                + " server''s history ({2} up to {3}, {4} up to {5}, backlog from {6})",
            replicationId,
            Long.toString(requestedOffset),
            replid,
            Long.toString(offset),
            replid2,
            Long.toString(secondReplOffset),
            Long.toString(backlog.firstByteOffset()));
      }
      LOGGER.log(Level.INFO, "Full resync requested by replica {0}", peer.name());
      peer.state = Peer.State.WAIT_BGSAVE;
      pushAcks();
    }
    boolean psync = replicationId != null;
    transfers.execute(() -> fullSync(peer, psync));
    return null;
  }

  private boolean continues(String id, long requested) {
    boolean known =
        id.equalsIgnoreCase(replid)
            || id.equalsIgnoreCase(replid2) && requested <= secondReplOffset;
    return known && backlog.from(requested) != null;
  }

  /** Cuts the stream, writes the transfer while commands go on, sends it and then the stream. */
  private void fullSync(Peer peer, boolean psync) {
    Path file = null;
    Keyspace keyspace = parts.keyspace();
    try {
      file = Files.createTempFile(transferDirectory(), "transfer-", ".cuckoo");
      long[] start = new long[1];
      String[] id = new String[1];
      int[] keysWritten = new int[1];
      long began = System.nanoTime();
      keyspace.moveGate().closeForSnapshot();
      try {
        List<Key> keys =
            keyspace.keysAcross(
                () -> {
                  synchronized (this) {
                    start[0] = offset;
                    id[0] = replid;
                    // the replica's first stream bytes must say which database they are for
                    streamDb = -1;
                    startReceiving(peer);
                    if (psync) {
                      peer.line("+FULLRESYNC " + replid + " " + offset);
                    }
                  }
                });
        Transfer.write(file, start[0], keys, keyspace, this::currentOffset);
        keysWritten[0] = keys.size();
      } finally {
        keyspace.moveGate().open();
      }
      long rawLength = Files.size(file);
      if (peer.lz4) {
        // mostly empty tables: what Redis's LZF does for its RDB strings, LZ4 does for the transfer
        Path compressed = Files.createTempFile(transferDirectory(), "transfer-", ".cuckoo.lz4");
        try {
          Transfer.compress(file, compressed);
        } catch (IOException | RuntimeException e) {
          deleteQuietly(compressed);
          throw e;
        }
        if (Files.size(compressed) < rawLength) {
          deleteQuietly(file);
          file = compressed;
        } else {
          // a few small keys, or tables full of fingerprints: it does not pay
          deleteQuietly(compressed);
        }
      }
      long length = Files.size(file);
      long written = (System.nanoTime() - began) / 1_000_000;
      Path sent = file;
      int keyCount = keysWritten[0];
      long sendFrom = System.nanoTime();
      synchronized (this) {
        peer.state = Peer.State.SEND_BULK;
        pushAcks();
        peer.line("$" + length);
        if (length != rawLength) {
          LOGGER.log(
              Level.INFO,
              "Transfer to replica {0} compressed from {1} to {2} bytes",
              peer.name(),
              Long.toString(rawLength),
              Long.toString(length));
        }
        // online, and the synchronization reported, once the replica's socket took the whole
        // transfer (Redis puts a replica online when its RDB is sent, not when it is queued)
        peer.transfer(
            new DefaultFileRegion(sent.toFile(), 0, length),
            done -> {
              deleteQuietly(sent);
              if (done) {
                transferred(peer, keyCount, length, start[0], id[0], written, sendFrom);
              }
            });
        peer.goLive();
      }
      file = null;
    } catch (IOException | RuntimeException e) {
      LOGGER.log(Level.WARNING, "full sync with replica " + peer.ip() + " failed: " + e, e);
      peer.channel.close();
    } finally {
      if (file != null) {
        deleteQuietly(file);
      }
    }
  }

  /** The replica's socket took its whole transfer: it is online from now on. */
  private void transferred(
      Peer peer, int keys, long length, long offset, String id, long writeMillis, long sendFrom) {
    synchronized (this) {
      if (peer.state != Peer.State.SEND_BULK) {
        return;
      }
      peer.state = Peer.State.ONLINE;
      peer.ackMillis = System.currentTimeMillis();
      pushAcks();
    }
    LOGGER.log(
        Level.INFO,
        "Synchronization with replica {0} succeeded ({1} keys, {2} bytes written in {3} ms and"
            + " sent in {4} ms, offset {5} of replication id {6})",
        peer.name(),
        Integer.toString(keys),
        Long.toString(length),
        Long.toString(writeMillis),
        Long.toString((System.nanoTime() - sendFrom) / 1_000_000),
        Long.toString(offset),
        id);
  }

  private synchronized long currentOffset() {
    return offset;
  }

  /**
   * Where transfers are written: the data directory, as Redis writes its temp-PID.rdb in its
   * working directory, with or without persistence (never the shared temporary directory, where
   * another server's start would take this one's transfer for a crash's leftover and delete it).
   */
  Path transferDirectory() throws IOException {
    Path dir = parts.config().get(Parameters.DIR);
    Files.createDirectories(dir);
    return dir;
  }

  /** Deletes the transfer files a crash left behind (they are never read again). */
  private void removeLeftoverTransfers() {
    try (java.nio.file.DirectoryStream<Path> files =
        Files.newDirectoryStream(transferDirectory(), "{transfer,received}-*.cuckoo*")) {
      for (Path file : files) {
        deleteQuietly(file);
      }
    } catch (IOException e) {
      LOGGER.log(Level.WARNING, "cannot look for leftover transfer files: " + e);
    }
  }

  static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      LOGGER.log(Level.WARNING, "cannot delete " + file + ": " + e);
    }
  }

  // ---------------------------------------------------------------- WAIT

  /**
   * WAIT: completes with the number of replicas that acknowledged {@code target} once {@code
   * replicas} have, or when {@code timeoutMillis} passes (0: no limit).
   */
  public CompletableFuture<Integer> waitFor(
      long clientId, long target, int replicas, long timeoutMillis) {
    // a connection that wrote nothing waits too (target 0), as Redis's waitCommand: for that many
    // replicas to be attached and acknowledging
    Waiter waiter = new Waiter(clientId, target, 0, 0, replicas, false, new CompletableFuture<>());
    return await(waiter, timeoutMillis).thenApply(Acks::replicas);
  }

  /**
   * WAITAOF: completes once this server's log has forced record {@code lsn} to disk (if {@code
   * local} is 1) and {@code replicas} replicas reported (FACK) having forced the stream up to
   * {@code target}, or when {@code timeoutMillis} passes (0: no limit), with what was reached.
   */
  public CompletableFuture<Acks> waitForFsync(
      long clientId, long target, long lsn, int local, int replicas, long timeoutMillis) {
    return await(
        new Waiter(clientId, target, lsn, local, replicas, true, new CompletableFuture<>()),
        timeoutMillis);
  }

  /**
   * CLIENT UNBLOCK: ends the WAIT or WAITAOF client {@code clientId} waits in, as its timeout would
   * (with what it reached now), or with {@code error} ({@link Unblocked#BY_CLIENT}, the connection
   * staying open). Returns false if that client waits in none.
   */
  public boolean unblock(long clientId, boolean error) {
    for (Waiter waiter : waiters) {
      if (waiter.clientId == clientId && waiters.remove(waiter)) {
        if (error) {
          waiter.done.completeExceptionally(new Unblocked(Unblocked.BY_CLIENT));
        } else {
          waiter.done.complete(acks(waiter));
        }
        return true;
      }
    }
    return false;
  }

  /**
   * Completes the waiter now if it is satisfied, else queues it until acknowledgements or fsyncs
   * satisfy it or its timeout passes, and asks the replicas for an ACK.
   */
  private CompletableFuture<Acks> await(Waiter waiter, long timeoutMillis) {
    Acks now = acks(waiter);
    if (satisfied(waiter, now)) {
      waiter.done.complete(now);
      return waiter.done;
    }
    waiters.add(waiter);
    synchronized (this) {
      ackRequested = true;
    }
    cron.execute(this::requestAcks);
    if (timeoutMillis > 0) {
      cron.schedule(
          () -> {
            waiters.remove(waiter);
            waiter.done.complete(acks(waiter));
          },
          timeoutMillis,
          TimeUnit.MILLISECONDS);
    }
    // an fsync or ACK may have come between the first look and the queueing
    checkWaiters();
    return waiter.done;
  }

  /** Returns what the waiter reached now. */
  private Acks acks(Waiter waiter) {
    int local = 0;
    if (waiter.fsynced) {
      Persistence persistence = parts.persistence().get();
      if (persistence == null) {
        local = waiter.local > 0 ? -1 : 0;
      } else {
        local = persistence.fsynced(waiter.lsn) ? 1 : 0;
      }
    }
    return new Acks(local, acked(waiter.offset, waiter.fsynced));
  }

  private static boolean satisfied(Waiter waiter, Acks acks) {
    return acks.local < 0 || (acks.local >= waiter.local && acks.replicas >= waiter.replicas);
  }

  private void requestAcks() {
    if (parts.paused().getAsBoolean()) {
      // asked again by the cron once the pause ends; the replicas' own ACKs still come meanwhile
      return;
    }
    synchronized (this) {
      if (!ackRequested) {
        return;
      }
      ackRequested = false;
    }
    feedCommand(GETACK);
  }

  /**
   * Returns the online replicas that acknowledged {@code target} (forced it, if {@code fsynced}).
   */
  private int acked(long target, boolean fsynced) {
    int count = 0;
    for (Peer peer : peers.values()) {
      if (peer.state == Peer.State.ONLINE
          && (fsynced ? peer.fackOffset : peer.ackOffset) >= target) {
        count++;
      }
    }
    return count;
  }

  private void checkWaiters() {
    for (Waiter waiter : waiters) {
      Acks acks = acks(waiter);
      if (satisfied(waiter, acks) && waiters.remove(waiter)) {
        waiter.done.complete(acks);
      }
    }
  }

  /**
   * The log forced more records to disk, or appendonly was switched: wakes the WAITAOF satisfied
   * now (a master), or lets a replica tell its master that what it asked for is on disk (see {@link
   * FsyncedOffset}). Runs on the forcing thread: the ACK is sent from the cron thread.
   */
  public void fsyncMoved() {
    if (link != null) {
      if (fsyncedOffset.wantedPending()) {
        try {
          cron.execute(this::ackFsynced);
        } catch (java.util.concurrent.RejectedExecutionException e) {
          // closing: the log's last force on the way out has no master to tell
        }
      }
    } else if (!waiters.isEmpty()) {
      checkWaiters();
    }
  }

  private void ackFsynced() {
    MasterLink current = link;
    if (current != null && fsyncedOffset.advance()) {
      current.sendAck(replicaOffset(), false);
    }
  }

  /**
   * Returns the offset of the master's stream this replica's log has forced to disk, for the FACK
   * of an ACK reporting {@code applied} (read before this call), or -1 when it has no log (Redis
   * then sends no FACK); {@code asked} for the master's GETACK.
   */
  long fsyncedOffset(long applied, boolean asked) {
    Persistence persistence = parts.persistence().get();
    return persistence == null ? -1 : fsyncedOffset.sample(persistence, applied, asked);
  }

  /**
   * Returns where this server's stream stands: master_repl_offset on a master, the offset applied
   * from its master on a replica (what a cluster node announces in its bus messages).
   */
  public synchronized long streamOffset() {
    return offset;
  }

  /**
   * Returns a replica's data age (what a cluster replica weighs before a failover): milliseconds
   * since it last heard its master while the link is up, or since the link went down; {@link
   * Long#MAX_VALUE} if the link never came up, and 0 on a master.
   */
  public long masterDataAgeMillis() {
    MasterLink current = link;
    if (current == null) {
      return 0;
    }
    long now = System.currentTimeMillis();
    if (current.state == MasterLink.State.CONNECTED) {
      return Math.max(0, now - current.lastIoMillis);
    }
    long downSince = current.downSinceMillis;
    return downSince == 0 ? Long.MAX_VALUE : Math.max(0, now - downSince);
  }

  /** Returns true if this server is a replica (WAIT is refused there). */
  public boolean isReplica() {
    return link != null;
  }

  // ---------------------------------------------------------------- once a second

  private long seconds;

  private void everySecond() {
    try {
      seconds++;
      for (Peer peer : peers.values()) {
        peer.closedOverLimit();
      }
      MasterLink current = link;
      if (current != null) {
        current.checkTimeout(System.currentTimeMillis());
        current.sendAck(replicaOffset(), false);
      } else if (!parts.paused().getAsBoolean()) {
        requestAcks();
        if (settings.pingReplicaPeriod() > 0 && seconds % settings.pingReplicaPeriod() == 0) {
          feedCommand(PING);
        }
      }
    } catch (RuntimeException e) {
      LOGGER.log(Level.WARNING, "replication cron: " + e, e);
    }
  }

  /**
   * How a WAIT or WAITAOF ends when its server becomes a replica while it waits: the client gets
   * Redis's {@link #MESSAGE} and its connection is closed, as Redis's disconnectAllBlockedClients
   * does; or when CLIENT UNBLOCK ERROR ends it: the client gets {@link #BY_CLIENT} and stays
   * connected.
   */
  public static final class Unblocked extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The error Redis answers. */
    public static final String MESSAGE =
        "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)";

    /** The error Redis answers a client CLIENT UNBLOCK ERROR unblocked. */
    public static final String BY_CLIENT = "UNBLOCKED client unblocked via CLIENT UNBLOCK";

    Unblocked() {
      this(MESSAGE);
    }

    Unblocked(String message) {
      super(message, null, false, false);
    }

    /** Returns true if CLIENT UNBLOCK ended the wait (the connection stays open). */
    public boolean byClient() {
      return BY_CLIENT.equals(getMessage());
    }
  }

  // ---------------------------------------------------------------- coordinated failover

  /**
   * FAILOVER [TO host port [FORCE]] [TIMEOUT ms]: holds writes back and fails over to the replica
   * (the named one, or the first that has acknowledged the whole stream), as Redis 6.2's
   * failoverCommand. Returns Redis's error text (with its code) or null when it started.
   *
   * @param host the replica to fail over to, or null for any
   * @param port its listening port (with {@code host})
   * @param timeoutMillis how long to wait for the replica to catch up, 0 for as long as it takes
   * @param force fail over to {@code host} when the time is up even if it has not caught up
   */
  public String failover(String host, int port, long timeoutMillis, boolean force) {
    synchronized (this) {
      if (failover.state != Failover.State.NONE) {
        return "ERR FAILOVER already in progress.";
      }
      if (link != null) {
        return "ERR FAILOVER is not valid when server is a replica.";
      }
      if (peers.isEmpty()) {
        return "ERR FAILOVER requires connected replicas.";
      }
      if (force && (timeoutMillis == 0 || host == null)) {
        return "ERR FAILOVER with force option requires both a timeout and target HOST and IP.";
      }
      if (host != null) {
        Peer target = replicaAt(host, port);
        if (target == null) {
          return "ERR FAILOVER target HOST and PORT is not a replica.";
        }
        if (target.state != Peer.State.ONLINE) {
          return "ERR FAILOVER target replica is not online.";
        }
        failover.host = host;
        failover.port = port;
        LOGGER.log(Level.INFO, "FAILOVER requested to {0}:{1}.", host, Integer.toString(port));
      } else {
        LOGGER.log(Level.INFO, "FAILOVER requested to any replica.");
      }
      failover.endMillis = timeoutMillis == 0 ? 0 : System.currentTimeMillis() + timeoutMillis;
      failover.force = force;
      failover.state = Failover.State.WAITING_FOR_SYNC;
      // as Redis runs its replication cron every 100 ms while a failover is on
      failoverChecks =
          cron.scheduleWithFixedDelay(this::checkFailover, 100, 100, TimeUnit.MILLISECONDS);
    }
    applier.pauseWrites(true);
    return null;
  }

  /** FAILOVER ABORT: Redis's error text, or null when the failover in progress was aborted. */
  public String abortFailover() {
    synchronized (this) {
      if (failover.state == Failover.State.NONE) {
        return "ERR No failover in progress.";
      }
    }
    abortFailover("Failover manually aborted");
    return null;
  }

  /**
   * PSYNC {@code id} … FAILOVER on a replica: its master hands over, and this server becomes a
   * master (REPLICAOF NO ONE) if it holds that master's stream. Returns Redis's error, or null once
   * promoted.
   */
  public String takeOver(String id) {
    synchronized (this) {
      if (link == null) {
        return "ERR PSYNC FAILOVER can't be sent to a master.";
      }
      if (!id.equalsIgnoreCase(replid)) {
        return "ERR PSYNC FAILOVER replid must match my replid.";
      }
    }
    promote();
    return null;
  }

  /** Returns {@code master_failover_state} as INFO replication reports it. */
  public String failoverState() {
    return failover.state.text;
  }

  /** Returns true while a FAILOVER is waiting or in progress (REPLICAOF is refused meanwhile). */
  public boolean failingOver() {
    return failover.state != Failover.State.NONE;
  }

  /** Returns true when the link's PSYNC must ask its master to take over (PSYNC … FAILOVER). */
  boolean handingOver() {
    return failover.state == Failover.State.IN_PROGRESS;
  }

  /**
   * The failover target answered the PSYNC that asked it to take over: accepted (+CONTINUE or
   * +FULLRESYNC) ends the failover; anything else aborts it, and this server is a master again.
   */
  void handedOver(MasterLink from, boolean accepted) {
    synchronized (this) {
      if (link != from || failover.state != Failover.State.IN_PROGRESS) {
        return;
      }
    }
    if (accepted) {
      endFailover();
    } else {
      abortFailover("Failover target rejected psync request");
    }
  }

  /** Returns the replica announced at {@code host}:{@code port} (Redis's findReplica). */
  private Peer replicaAt(String host, int port) {
    for (Peer peer : peers.values()) {
      if (peer.state != null && peer.ip().equalsIgnoreCase(host) && peer.listeningPort == port) {
        return peer;
      }
    }
    return null;
  }

  /**
   * Checks whether the failover's time is up or its replica has caught up (updateFailoverStatus).
   */
  private void checkFailover() {
    String host;
    int port;
    synchronized (this) {
      if (failover.state != Failover.State.WAITING_FOR_SYNC) {
        return;
      }
      if (failover.endMillis != 0 && failover.endMillis <= System.currentTimeMillis()) {
        if (!failover.force) {
          host = null;
          port = 0;
        } else {
          LOGGER.log(
              Level.INFO, "FAILOVER to {0} time out exceeded, failing over.", failover.target());
          failover.state = Failover.State.IN_PROGRESS;
          host = failover.host;
          port = failover.port;
        }
      } else {
        Peer caughtUp = null;
        if (failover.host != null) {
          Peer target = replicaAt(failover.host, failover.port);
          caughtUp = target != null && target.ackOffset == offset ? target : null;
        } else {
          for (Peer peer : peers.values()) {
            if (peer.state == Peer.State.ONLINE && peer.ackOffset == offset) {
              caughtUp = peer;
              failover.host = peer.ip();
              failover.port = peer.listeningPort;
              break;
            }
          }
        }
        if (caughtUp == null) {
          return;
        }
        failover.state = Failover.State.IN_PROGRESS;
        LOGGER.log(Level.INFO, "Failover target {0} is synced, failing over.", failover.target());
        host = failover.host;
        port = failover.port;
      }
    }
    if (host == null) {
      abortFailover("Replica never caught up before timeout");
      return;
    }
    follow(host, port, true);
  }

  /** Ends the failover, failed: a server that started following its replica is a master again. */
  private void abortFailover(String reason) {
    boolean following;
    synchronized (this) {
      if (failover.state == Failover.State.NONE) {
        return;
      }
      LOGGER.log(Level.INFO, "FAILOVER to {0} aborted: {1}", failover.target(), reason);
      following = failover.state == Failover.State.IN_PROGRESS;
    }
    if (following) {
      promote();
    }
    endFailover();
  }

  /** Forgets the failover and lets the held writes run (Redis's clearFailoverState). */
  private void endFailover() {
    synchronized (this) {
      failover.clear();
      if (failoverChecks != null) {
        failoverChecks.cancel(false);
        failoverChecks = null;
      }
    }
    applier.pauseWrites(false);
  }

  // ---------------------------------------------------------------- the replica role

  /**
   * REPLICAOF host port: follows that master (from the current id and offset if it holds them, else
   * with a full copy). Returns false if it already follows it.
   */
  public boolean replicaOf(String host, int port) {
    return follow(host, port, true);
  }

  /**
   * Follows the master; {@code offerOwnStream} if this server was a master until now, whose own
   * stream the new master may hold (Redis's replicationCacheMasterUsingMyself).
   */
  private boolean follow(String host, int port, boolean offerOwnStream) {
    // clients blocked in WAIT or WAITAOF as a master wait for nothing now (Redis's
    // disconnectAllBlockedClients): answered with -UNBLOCKED and closed
    for (Waiter waiter : waiters) {
      if (waiters.remove(waiter)) {
        waiter.done.completeExceptionally(new Unblocked());
      }
    }
    MasterLink old;
    synchronized (this) {
      if (link != null && link.host.equalsIgnoreCase(host) && link.port == port) {
        return false;
      }
      old = link;
      link = new MasterLink(this, host, port, restoredDb);
      pushRole();
      parts.config().put(Parameters.REPLICAOF, host + " " + port);
      // another master's stream: what its offsets on disk are is sampled anew
      fsyncedOffset.resume(0);
      if (old == null && offerOwnStream) {
        // as a master we held our own stream: offer it to the new master (PSYNC2 rejoin)
        if (backlog == null) {
          backlog = new Backlog(settings.backlogSize(), offset);
        }
      }
    }
    if (old != null) {
      old.stop();
    }
    // replicas of this server resync through the new chain
    for (Peer peer : peers.values()) {
      peer.channel.close();
    }
    link.start();
    return true;
  }

  /**
   * REPLICAOF NO ONE: stops following the master and becomes a master, keeping the history. The new
   * replication id is on disk (a stream mark, forced) before anyone can see it, so that this server
   * restarted before any write still knows it (as the secondary id) and its replicas continue with
   * +CONTINUE.
   */
  public void promote() {
    MasterLink old;
    synchronized (this) {
      old = link;
      if (old == null) {
        return;
      }
    }
    // the link applies nothing more: the offset and the stream's database stand still
    old.stop();
    String id = newId();
    Applier current = applier;
    if (current != null) {
      long at;
      synchronized (this) {
        at = offset;
      }
      if (!current.markStreamDurably(new StreamMark(id, at, at, old.db()))) {
        LOGGER.log(
            Level.WARNING,
            "the new replication id could not be forced to disk: after a restart before any"
                + " write, replicas will need a full copy");
      }
    }
    synchronized (this) {
      if (link != old) {
        // a REPLICAOF meanwhile follows another master
        return;
      }
      link = null;
      pushRole();
      parts.config().put(Parameters.REPLICAOF, null);
      replid2 = replid;
      secondReplOffset = offset + 1;
      replid = id;
      ownId = true;
      streamDb = -1;
      if (backlog == null) {
        backlog = new Backlog(settings.backlogSize(), offset);
      }
    }
    LOGGER.log(
        Level.INFO,
        "Setting secondary replication ID to {0}, valid up to offset: {1}. New replication ID is"
            + " {2}",
        replid2,
        Long.toString(secondReplOffset),
        replid);
  }

  /**
   * DEBUG CHANGE-REPL-ID, as Redis's changeReplicationId and clearReplicationId2: a new random
   * replication id, no secondary one; replicas that ask to continue the old one get a full copy.
   */
  public void changeReplicationId() {
    synchronized (this) {
      replid = newId();
      replid2 = NO_ID;
      secondReplOffset = -1;
    }
    LOGGER.log(Level.INFO, "Changing replication IDs after receiving DEBUG change-repl-id");
  }

  /** Returns the id and next offset this server asks its master to continue from. */
  synchronized String[] psyncRequest() {
    if (backlog == null) {
      return new String[] {"?", "-1"};
    }
    if (ownId && !replid2.equals(NO_ID) && offset + 1 == secondReplOffset) {
      // nothing was written under an id made here (a restarted or just promoted master), which
      // no master knows: the history is replid2's up to here
      return new String[] {replid2, Long.toString(offset + 1)};
    }
    return new String[] {replid, Long.toString(offset + 1)};
  }

  /** Returns the offset the replica has applied (slave_repl_offset). */
  synchronized long replicaOffset() {
    return offset;
  }

  /** Records that the master continued our stream under {@code newId}. */
  synchronized void continued(MasterLink from, String newId) {
    if (link != from) {
      return;
    }
    if (newId != null && !newId.equals(replid)) {
      replid2 = replid;
      secondReplOffset = offset + 1;
      replid = newId;
    }
    // the master's id from now on, as Redis's replicas ask with their master's id
    ownId = false;
  }

  /** Appends bytes the replica applied to its offset and backlog, and to its own replicas. */
  synchronized void applied(MasterLink from, byte[] bytes, int start, int length) {
    if (link != from) {
      return;
    }
    feed(bytes, start, length);
  }

  /** Returns what replays a record onto a fresh keyspace during catch-up. */
  RecordApplier replayer(Keyspace fresh) {
    return parts.replayers().apply(fresh);
  }

  /** Returns the table's rules (which keys a record changes). */
  RecordRules rules() {
    return parts.rules();
  }

  /** Returns the number of databases. */
  int databases() {
    return parts.keyspace().databases();
  }

  /**
   * Replaces the live keyspace's content by {@code fresh} (all keys locked), sets the stream to the
   * master's id and offset and saves a snapshot so the files hold the new data.
   */
  void swapIn(
      MasterLink from, Keyspace fresh, String masterId, long masterOffset, byte[] caughtUp, int db)
      throws IOException {
    // nothing is reported on disk until the copy is saved
    fsyncedOffset.suspend();
    long onDisk = 0;
    try {
      swapInAndSave(from, fresh, masterId, masterOffset, caughtUp, db);
      onDisk = parts.persistence().get() != null ? masterOffset + caughtUp.length : 0;
    } finally {
      fsyncedOffset.resume(onDisk);
    }
  }

  private void swapInAndSave(
      MasterLink from, Keyspace fresh, String masterId, long masterOffset, byte[] caughtUp, int db)
      throws IOException {
    Keyspace keyspace = parts.keyspace();
    keyspace.lockAll();
    try {
      parts.watches().touchDatabase(-1, keyspace);
      keyspace.clear();
      for (Map.Entry<Key, RedisCuckooFilter<byte[]>> entry : fresh.entries().entrySet()) {
        Key key = entry.getKey();
        keyspace.put(key, entry.getValue());
        long expireAt = fresh.expireAt(key);
        if (expireAt != Keyspace.NO_EXPIRY) {
          keyspace.expireAt(key, expireAt);
        }
      }
      synchronized (this) {
        if (link == from) {
          replid = masterId;
          ownId = false;
          replid2 = NO_ID;
          secondReplOffset = -1;
          offset = masterOffset;
          backlog = new Backlog(settings.backlogSize(), masterOffset);
          feed(caughtUp, 0, caughtUp.length);
        }
      }
    } finally {
      keyspace.unlockAll();
    }
    applier.markStream(
        new StreamMark(
            masterId, masterOffset + caughtUp.length, masterOffset + caughtUp.length, db));
    Persistence persistence = parts.persistence().get();
    if (persistence != null) {
      long began = System.nanoTime();
      persistence.save();
      LOGGER.log(
          Level.INFO,
          "MASTER <-> REPLICA sync: the received data saved in {0} ms",
          Long.toString((System.nanoTime() - began) / 1_000_000));
    }
  }

  /** Returns the replication id (on a replica: its master's). */
  synchronized String replicationId() {
    return replid;
  }

  /** Records the foreign keys a Redis master's full transfer held (replacing the last ones). */
  void foreignKeys(ForeignTypes found) {
    foreignKeys.clear();
    foreignKeys.addAll(found);
  }

  /** Counts a write of a Redis master's stream to a type this server does not hold. */
  void foreignWrite(String type) {
    foreignWrites.add(type);
  }

  /** Returns the foreign keys of the last full transfer from a Redis master. */
  ForeignTypes foreignKeys() {
    return foreignKeys;
  }

  /** Returns the foreign writes skipped in Redis masters' streams. */
  ForeignTypes foreignWrites() {
    return foreignWrites;
  }

  /** Returns the applier of the live keyspace. */
  Applier applier() {
    return applier;
  }

  /** Returns this server's listening port (announced to the master). */
  int port() {
    return parts.port().getAsInt();
  }

  // ---------------------------------------------------------------- INFO and ROLE

  /** What INFO and ROLE print about the stream, read at one moment. */
  record Position(
      String replid,
      String replid2,
      long offset,
      long secondOffset,
      boolean backlogActive,
      long backlogFirstByte,
      long backlogHistlen) {}

  /** Returns the stream's ids, offsets and backlog, read together. */
  synchronized Position position() {
    return new Position(
        replid,
        replid2,
        offset,
        secondReplOffset,
        backlog != null,
        backlog != null ? backlog.firstByteOffset() : 0,
        backlog != null ? backlog.histlen() : 0);
  }

  /**
   * Returns the address of the master this replica follows, its host resolved (the peer Redis
   * prints for its master client), or null on a master.
   */
  public InetSocketAddress masterAddress() {
    MasterLink current = link;
    return current == null ? null : new InetSocketAddress(current.host, current.port);
  }

  /** Returns the replica's link (null on a master). */
  MasterLink link() {
    return link;
  }

  /** Returns the replicas that asked for a sync, in connection order. */
  List<Peer> listedPeers() {
    List<Peer> listed = new ArrayList<>();
    for (Peer peer : peers.values()) {
      if (peer.state != null) {
        listed.add(peer);
      }
    }
    listed.sort((a, b) -> Long.compare(a.clientId, b.clientId));
    return listed;
  }

  /** Returns the replicas that acknowledged within min-replicas-max-lag (INFO's good slaves). */
  int goodReplicaCount() {
    return goodReplicas();
  }

  /** Appends INFO's replication section, field by field as Redis prints it. */
  public void info(StringBuilder out) {
    ReplicationReport.info(this, out);
  }

  /** Answers ROLE as Redis does for a master or a replica. */
  public void role(Reply reply) {
    ReplicationReport.role(this, reply);
  }
}
