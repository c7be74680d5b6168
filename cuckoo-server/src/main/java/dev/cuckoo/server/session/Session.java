package dev.cuckoo.server.session;

import dev.cuckoo.server.keyspace.CommandClock;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Watches;
import dev.cuckoo.server.persist.Retrier;
import dev.cuckoo.server.persist.Transaction;
import dev.cuckoo.server.protocol.Authentication;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.pubsub.Frame;
import dev.cuckoo.server.pubsub.Subscriber;

/**
 * The state of one client connection: its reply stream, protocol version, authentication and name.
 * Used only by the network thread of that connection.
 */
public final class Session implements Watches.Watcher, Retrier {
  private final long id;
  private final Reply reply;
  private final boolean replaying;
  private final Authentication authentication;
  private volatile dev.cuckoo.server.acl.User user;
  // volatile: CLIENT KILL sets it from another connection's thread
  private volatile boolean closeRequested;
  private java.util.concurrent.CompletableFuture<java.util.function.Consumer<Reply>> deferred;
  private boolean retries;
  private java.util.concurrent.CompletableFuture<Void> retry;
  // read by INFO and CLIENT LIST on other threads
  private volatile boolean blocked;
  private volatile boolean blockedWithTimeout;
  private ClientBuffers buffers = ClientBuffers.NONE;
  private long firstLsn;
  private long lastLsn;
  private long lastWriteLsn;
  private byte[] lastCommandName;
  private CommandRef lastCommand;
  private String name;
  private String libName;
  private String libVersion;
  private int db;
  private java.util.List<CommandRef> queue;
  private boolean queueFailed;
  private Transaction transaction;
  private java.util.Map<Key, Boolean> watched;
  private volatile boolean watchTouched;
  private Subscriber subscriber = new Subscriber(message -> {});
  private boolean fromMaster;
  // the replica's link is no registered connection: its address is asked for when needed
  private java.util.function.Supplier<String> linkAddress;
  private long streamOffset;
  private dev.cuckoo.server.persist.StreamMark streamMark;

  /**
   * Creates a session.
   *
   * @param id client id (CLIENT ID, HELLO)
   * @param reply where replies go
   * @param authentication whether commands may run without AUTH; shared with the decoder
   * @param replaying true for the recovery session that replays the append-only log
   */
  public Session(long id, Reply reply, Authentication authentication, boolean replaying) {
    this.id = id;
    this.reply = reply;
    this.authentication = authentication;
    this.replaying = replaying;
  }

  /** Returns the client id. */
  public long id() {
    return id;
  }

  /** Returns the reply stream. */
  public Reply reply() {
    return reply;
  }

  /** Returns true while the append-only log is replayed at startup (no limits, no logging). */
  public boolean replaying() {
    return replaying;
  }

  /**
   * Returns true for the replica's link to its master: its writes are the master's, never refused
   * and never expiring keys of their own.
   */
  public boolean fromMaster() {
    return fromMaster;
  }

  /** Returns the replication stream's offset after this session's last write (WAIT). */
  public long streamOffset() {
    return streamOffset;
  }

  /** Notes the replication stream's offset after a write of this session. */
  public void streamOffset(long offset) {
    streamOffset = offset;
  }

  /** Sets the stream mark to log before this session's next record (the master link). */
  public void streamMark(dev.cuckoo.server.persist.StreamMark mark) {
    streamMark = mark;
  }

  /** Returns and forgets the stream mark to log before this session's next record, or null. */
  public dev.cuckoo.server.persist.StreamMark takeStreamMark() {
    dev.cuckoo.server.persist.StreamMark mark = streamMark;
    streamMark = null;
    return mark;
  }

  /** Marks the session as the replica's link to its master. */
  public void fromMaster(boolean on) {
    fromMaster = on;
  }

  /**
   * Sets where the address of a session without a connection of its own comes from (the replica's
   * link: its master's), asked for only when a command must name its client (MONITOR, SLOWLOG).
   */
  public void linkAddress(java.util.function.Supplier<String> address) {
    linkAddress = address;
  }

  /** Returns the address set by {@link #linkAddress}, or "" when none is set. */
  public String linkAddress() {
    return linkAddress == null ? "" : linkAddress.get();
  }

  /**
   * Returns the ACL user the connection runs as: the default user until AUTH or HELLO names
   * another; null for the master's link and recovery, which may run anything.
   */
  public dev.cuckoo.server.acl.User user() {
    return user;
  }

  /** Sets the ACL user the connection runs as (a new connection: the default user). */
  public void user(dev.cuckoo.server.acl.User user) {
    this.user = user;
  }

  /** Returns true once the client has authenticated (or no password is set). */
  public boolean authenticated() {
    return authentication.authenticated();
  }

  /** Marks the client authenticated as {@code user}. */
  public void authenticate(dev.cuckoo.server.acl.User user) {
    this.user = user;
    authentication.authenticate();
  }

  /** Returns true if the connection should close after the pending replies are written. */
  public boolean closeRequested() {
    return closeRequested;
  }

  /**
   * Asks for the connection to be closed after the pending replies are written; from any thread (a
   * request the connection reads after this is not run).
   */
  public void requestClose() {
    closeRequested = true;
  }

  /**
   * Returns the command last looked up under exactly this name (same bytes), or null: a connection
   * usually repeats the same few commands, so this skips the name lookup.
   */
  public CommandRef lastCommand(byte[] name) {
    return lastCommandName != null && java.util.Arrays.equals(lastCommandName, name)
        ? lastCommand
        : null;
  }

  /** Remembers the command found for a name. */
  public void lastCommand(byte[] name, CommandRef spec) {
    lastCommandName = name;
    lastCommand = spec;
  }

  /** Notes that this session appended record {@code lsn} to the write log. */
  public void logged(long lsn) {
    if (firstLsn == 0) {
      firstLsn = lsn;
    }
    lastLsn = lsn;
    lastWriteLsn = lsn;
  }

  /**
   * Returns the record number of this session's last write, kept after it is committed (WAITAOF's
   * local fsync); 0 if it wrote nothing logged.
   */
  public long lastWriteLsn() {
    return lastWriteLsn;
  }

  /** Returns the first record number logged since the last {@link #clearLogged}, or 0. */
  public long firstLogged() {
    return firstLsn;
  }

  /** Returns the last record number logged since the last {@link #clearLogged}, or 0. */
  public long lastLogged() {
    return lastLsn;
  }

  /** Forgets the records logged (they were committed or reported failed). */
  public void clearLogged() {
    firstLsn = 0;
    lastLsn = 0;
  }

  /**
   * Defers this command's reply: the connection runs nothing else (and reads nothing more) until
   * {@code reply} completes; then the reply is written with what it completed with.
   */
  public void defer(
      java.util.concurrent.CompletableFuture<java.util.function.Consumer<Reply>> reply) {
    deferred = reply;
  }

  /** Returns and clears the deferred reply, or null. */
  public java.util.concurrent.CompletableFuture<java.util.function.Consumer<Reply>> takeDeferred() {
    java.util.concurrent.CompletableFuture<java.util.function.Consumer<Reply>> taken = deferred;
    deferred = null;
    return taken;
  }

  /** Lets commands ask for a retry ({@link #retryAfter}): the connection's handler honours it. */
  public void allowRetries() {
    retries = true;
  }

  /**
   * Asks for the current command to run again once {@code ready} completes, without a reply now;
   * returns false (and asks nothing) if this session cannot retry, and the caller must wait itself.
   */
  @Override
  public boolean retryAfter(java.util.concurrent.CompletableFuture<Void> ready) {
    if (!retries) {
      return false;
    }
    retry = ready;
    return true;
  }

  /** Returns true if the last command asked for a retry not yet taken (it did not finish). */
  public boolean retryAsked() {
    return retry != null;
  }

  /**
   * Marks the wait the command asked for (its deferred reply or retry) as the client being blocked,
   * as Redis's blockClient does for WAIT (BLOCKED_WAIT) and for a command CLIENT PAUSE holds back
   * (BLOCKED_POSTPONE): INFO counts the client in blocked_clients and CLIENT LIST flags it 'b'
   * until the connection resumes ({@link #unblock}).
   */
  public void block() {
    blocked = true;
  }

  /**
   * Blocks as {@link #block} for a wait that ends at a timeout (WAIT, WAITAOF with a timeout): the
   * client is also in Redis's timeout table (INFO clients_in_timeout_table).
   */
  public void blockWithTimeout() {
    blockedWithTimeout = true;
    blocked = true;
  }

  /** Ends {@link #block}: the wait is over, or the connection closed. */
  public void unblock() {
    blocked = false;
    blockedWithTimeout = false;
  }

  /** Returns true while the client waits in a blocking command that has a timeout. */
  public boolean blockedWithTimeout() {
    return blockedWithTimeout;
  }

  /** Returns the connection's buffers (CLIENT LIST's qbuf … tot-mem). */
  public ClientBuffers buffers() {
    return buffers;
  }

  /** Sets the connection's buffers; called once, when the connection opens. */
  public void buffers(ClientBuffers buffers) {
    this.buffers = buffers;
  }

  /** Returns true while the client waits in a command that blocks it (see {@link #block}). */
  public boolean blocked() {
    return blocked;
  }

  /** Returns and clears the retry asked for by the last command, or null. */
  public java.util.concurrent.CompletableFuture<Void> takeRetry() {
    java.util.concurrent.CompletableFuture<Void> taken = retry;
    retry = null;
    return taken;
  }

  /** Returns the connection's pub/sub subscriptions. */
  public Subscriber subscriber() {
    return subscriber;
  }

  /**
   * Sets the subscriptions whose outbox reaches this connection's socket (by the network layer,
   * before the first command; until then messages for the session are dropped).
   */
  public void subscriber(Subscriber subscriber) {
    this.subscriber = subscriber;
  }

  private int commandDepth;
  private long netIn;
  private long netOut;

  /** Returns the bytes received on this connection (CLIENT LIST tot-net-in). */
  public long netIn() {
    return netIn;
  }

  /** Sets the bytes received on this connection so far. */
  public void netIn(long bytes) {
    netIn = bytes;
  }

  /** Returns the bytes sent on this connection (CLIENT LIST tot-net-out). */
  public long netOut() {
    return netOut;
  }

  /** Adds bytes sent on this connection. */
  public void addNetOut(long bytes) {
    netOut += bytes;
  }

  private java.util.List<Frame> heldMessages;

  /** Notes that a request starts running (EXEC's commands nest inside EXEC). */
  public void enterCommand() {
    commandDepth++;
  }

  /**
   * Notes that a request finished; after the outermost one, the messages held for this connection
   * while it ran follow its reply.
   */
  public void exitCommand() {
    if (--commandDepth == 0 && heldMessages != null) {
      for (Frame message : heldMessages) {
        message.writeTo(reply);
      }
      heldMessages = null;
    }
  }

  /**
   * Holds a message for this connection if it is running a request (it published to a channel it
   * subscribes to) and returns true: as in Redis 7.2 and later, the message follows the request's
   * reply (after EXEC's whole reply inside a transaction). Returns false when no request runs.
   * Called on the connection's thread.
   */
  public boolean holdWhileRunning(Frame message) {
    if (commandDepth == 0) {
      return false;
    }
    if (heldMessages == null) {
      heldMessages = new java.util.ArrayList<>();
    }
    heldMessages.add(message);
    return true;
  }

  /** Returns the client name, or null. */
  public String name() {
    return name;
  }

  /** Sets the client name (null clears it). */
  public void name(String name) {
    this.name = name;
  }

  /** Returns the library name from CLIENT SETINFO, or null. */
  public String libName() {
    return libName;
  }

  /** Sets the library name. */
  public void libName(String libName) {
    this.libName = libName;
  }

  /** Returns the library version from CLIENT SETINFO, or null. */
  public String libVersion() {
    return libVersion;
  }

  /** Sets the library version. */
  public void libVersion(String libVersion) {
    this.libVersion = libVersion;
  }

  /** Returns the selected database index (SELECT). */
  public int db() {
    return db;
  }

  /** Selects a database (the caller checked the index). */
  public void db(int db) {
    this.db = db;
  }

  /** Starts a transaction (MULTI): commands are queued until EXEC or DISCARD. */
  public void beginMulti() {
    queue = new java.util.ArrayList<>();
    queueFailed = false;
  }

  /** Returns true between MULTI and EXEC/DISCARD. */
  public boolean inMulti() {
    return queue != null;
  }

  /**
   * Queues a request of the transaction (EXEC runs it in the database selected when it reaches it).
   */
  public void queue(CommandRef request) {
    queue.add(request);
  }

  /** Notes that a command could not be queued: EXEC will abort the transaction. */
  public void failQueue() {
    if (queue != null) {
      queueFailed = true;
    }
  }

  /** Returns true if a command could not be queued since MULTI. */
  public boolean queueFailed() {
    return queueFailed;
  }

  /** Returns the queued commands and ends the transaction's queueing. */
  public java.util.List<CommandRef> takeQueue() {
    java.util.List<CommandRef> taken = queue;
    queue = null;
    queueFailed = false;
    return taken;
  }

  /** Returns the queued commands without ending the transaction, or null outside one. */
  public java.util.List<CommandRef> queued() {
    return queue;
  }

  /** Returns the number of commands queued in MULTI, or -1 outside a transaction. */
  public int queuedCommands() {
    return queue == null ? -1 : queue.size();
  }

  /** Returns the transaction whose commands are running (EXEC), or null. */
  public Transaction transaction() {
    return transaction;
  }

  /** Sets (or with null clears) the transaction whose commands are running. */
  public void transaction(Transaction transaction) {
    this.transaction = transaction;
  }

  /** Returns true if commands may ask for a retry ({@link #retryAfter}). */
  public boolean retriesAllowed() {
    return retries;
  }

  /** Allows or forbids retries (forbidden while a transaction's commands run). */
  public void retriesAllowed(boolean allowed) {
    retries = allowed;
  }

  /**
   * Adds a watched key; returns false if it was watched already.
   *
   * @param expiredNow whether the key had expired when it was watched (its expiry then is no
   *     change)
   */
  @Override
  public boolean watch(Key key, boolean expiredNow) {
    if (watched == null) {
      watched = new java.util.LinkedHashMap<>();
    }
    return watched.putIfAbsent(key, expiredNow) == null;
  }

  /** Returns the watched keys, each with whether it had expired when watched. */
  public java.util.Map<Key, Boolean> watched() {
    return watched == null ? java.util.Map.of() : watched;
  }

  /** Forgets the watched keys and the mark; returns the keys that were watched. */
  @Override
  public java.util.Set<Key> unwatchAll() {
    java.util.Set<Key> keys = watched == null ? java.util.Set.of() : watched.keySet();
    watched = null;
    watchTouched = false;
    return keys;
  }

  /** Marks a watched key as changed (from any thread). */
  @Override
  public void touchWatched() {
    watchTouched = true;
  }

  /** Returns true if a watched key changed since it was watched. */
  public boolean watchTouched() {
    return watchTouched;
  }

  /** Returns the number of keys this connection WATCHes. */
  public int watchedKeys() {
    return watched == null ? 0 : watched.size();
  }

  private String lastExecuted;
  private long lastInteractionMillis = System.currentTimeMillis();
  private boolean noEvict;
  private boolean noTouch;
  private long commandsProcessed;
  // the reply's error count when the last command finished: what commandstats' failed_calls
  // compares with, so an EXEC is not failed by the errors of the commands it ran
  private long errorsCounted;

  /**
   * Notes a request about to run, or refused: CLIENT LIST's {@code cmd} (the name of the command or
   * subcommand its name found, null for none), {@code idle} and {@code tot-cmds}. The commands EXEC
   * runs were counted when they were queued and leave these alone, as in Redis (where {@code cmd}
   * then stays {@code exec}).
   *
   * @param nowMillis the command's time ({@link CommandClock#now})
   */
  public void executing(String commandName, long nowMillis) {
    if (transaction != null) {
      return;
    }
    lastExecuted = commandName;
    lastInteractionMillis = nowMillis;
    commandsProcessed++;
  }

  /**
   * Notes data received from the connection when it differs from the command's time: the master
   * link's commands run at a fixed time of their own ({@link CommandClock#enterAt}).
   */
  public void interacted(long nowMillis) {
    lastInteractionMillis = nowMillis;
  }

  /**
   * Starts the session's CLIENT LIST history afresh ({@code cmd=NULL}, no commands, idle from now),
   * for the master link's session when it becomes a new client.
   */
  public void startHistory(long nowMillis) {
    lastExecuted = null;
    commandsProcessed = 0;
    lastInteractionMillis = nowMillis;
  }

  /** Returns the number of commands this connection has run, the current one included. */
  public long commandsProcessed() {
    return commandsProcessed;
  }

  /**
   * Returns the name of the command this connection ran last, or null (before its first, or
   * unknown).
   */
  public String lastExecuted() {
    return lastExecuted;
  }

  /** Returns when this connection last ran a command (its creation time before the first). */
  public long lastInteractionMillis() {
    return lastInteractionMillis;
  }

  /** Returns true after CLIENT NO-EVICT on. */
  public boolean noEvict() {
    return noEvict;
  }

  /** Sets CLIENT NO-EVICT (no effect here but the 'e' flag of CLIENT LIST). */
  public void noEvict(boolean on) {
    noEvict = on;
  }

  /** Returns true after CLIENT NO-TOUCH on. */
  public boolean noTouch() {
    return noTouch;
  }

  /** Sets CLIENT NO-TOUCH (no effect here but the 'T' flag of CLIENT LIST). */
  public void noTouch(boolean on) {
    noTouch = on;
  }

  /**
   * Puts the connection back in the state it had when it connected (RESET), as Redis's {@code
   * clearClientConnectionState}: database 0, RESP2, authenticated only if no password is required,
   * no name, NO-EVICT and NO-TOUCH off. The library name and version stay: they still describe the
   * client behind the connection.
   *
   * @param noPassword true if the server requires no password
   * @param defaultUser the user the connection runs as again
   */
  public void resetConnection(boolean noPassword, dev.cuckoo.server.acl.User defaultUser) {
    user = defaultUser;
    db = 0;
    reply.protocol(2);
    authentication.reset(noPassword);
    name = null;
    noEvict = false;
    noTouch = false;
    asking = false;
    readOnly = false;
  }

  private boolean asking;
  private boolean readOnly;

  /** Returns true if ASKING was sent for the next command (or the transaction being queued). */
  public boolean asking() {
    return asking;
  }

  /** Sets or clears the ASKING flag. */
  public void asking(boolean on) {
    asking = on;
  }

  /**
   * Returns true after READONLY: a replica serves this connection's reads of its master's slots.
   */
  public boolean readOnly() {
    return readOnly;
  }

  /** Sets (READONLY) or clears (READWRITE) the read-only flag. */
  public void readOnly(boolean on) {
    readOnly = on;
  }

  /** Returns the reply's error count when the last command finished. */
  public long errorsCounted() {
    return errorsCounted;
  }

  /** Notes the reply's error count when a command finished. */
  public void errorsCounted(long errors) {
    this.errorsCounted = errors;
  }
}
