package dev.cuckoo.server.replication;

import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.persist.LogReader;
import dev.cuckoo.server.persist.StreamMark;
import dev.cuckoo.server.persist.Transaction;
import dev.cuckoo.server.persist.Transfer;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.rdb.RdbReader;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A replica's link to its master, on a thread of its own: connects, shakes hands as Redis does
 * (PING, AUTH, REPLCONF listening-port, REPLCONF capa eof capa psync2, PSYNC), receives a full
 * transfer or continues from its offset, then applies the stream. A lost link is retried every
 * second, as Redis's replication cron does; the data served meanwhile is the data held.
 *
 * <p>A full transfer is loaded as it arrives (no copy on disk) into a fresh keyspace, checked entry
 * by entry, and brought up to date with the stream that follows it (skipping what each key already
 * holds) before it replaces the live data at once; a transfer that breaks off or fails its checksum
 * leaves the old data in place.
 */
final class MasterLink {
  private static final System.Logger LOGGER = System.getLogger(MasterLink.class.getName());
  private static final byte[] SNAPSHOT_MAGIC = "CKOOSNP".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] RDB_MAGIC = "REDIS".getBytes(StandardCharsets.US_ASCII);
  private static final int EOF_MARK_BYTES = 40;

  /** The link's state as ROLE names it. */
  enum State {
    CONNECT("connect"),
    CONNECTING("connecting"),
    HANDSHAKE("handshake"),
    TRANSFER("sync"),
    CONNECTED("connected");

    final String text;

    State(String text) {
      this.text = text;
    }
  }

  final String host;
  final int port;
  private final Replication replication;
  private final Thread thread;
  private final Object output = new Object();
  private volatile boolean stopped;
  private volatile Socket socket;
  private OutputStream out;

  volatile State state = State.CONNECT;
  volatile long lastIoMillis = System.currentTimeMillis();
  // true while a connection is being made or used: repl-timeout is then checked once a second by
  // checkTimeout, as Redis's replication cron does. The socket never gets a connect or read
  // timeout: the JDK then switches it to non-blocking mode for good, and every read becomes a
  // read (EAGAIN), a poll and a second read; a blocking socket reads with one system call
  private volatile boolean active;

  /** When the link to the master was lost (0: never up, INFO then prints -1 as Redis does). */
  volatile long downSinceMillis;

  volatile long transferSize = -1;
  volatile long transferRead;

  /** True once the master sent a Redis RDB (a Redis master, not a cuckoo-server): INFO says so. */
  volatile boolean redisMaster;

  /** The database the stream's next command runs in (kept across reconnects, as Redis does). */
  private int db;

  /** True once a connection of this link was a client: a +CONTINUE then resumes that client. */
  private boolean wasClient;

  /** Moves the link to {@code next} and tells replication, which pushes the role it implies. */
  private void state(State next) {
    state = next;
    replication.pushRole();
  }

  /**
   * The client id of this link's connection while it is a client of this server (its stream is up:
   * CLIENT LIST flag M), else 0.
   */
  private long clientId;

  MasterLink(Replication replication, String host, int port, int db) {
    this.replication = replication;
    this.db = db;
    this.host = host;
    this.port = port;
    // a Netty thread: the pooled buffers of the replies and the log's encoder are thread-local, and
    // on a plain thread Netty 4.2 recycles no buffer object (a new one per applied write) and looks
    // its thread-locals up in a ThreadLocal map
    this.thread = new FastThreadLocalThread(this::run, "replica-of-" + host + ":" + port);
    thread.setDaemon(true);
  }

  void start() {
    LOGGER.log(Level.INFO, "REPLICAOF {0}:{1} enabled", host, Integer.toString(port));
    thread.start();
  }

  /** Returns the database the master's stream is in (after {@link #stop}: where it stopped). */
  int db() {
    return db;
  }

  /**
   * Stops the link: closes the connection and waits (up to 10 s) for the thread to finish the
   * command it is applying, so nothing of this link is logged after what the caller logs next.
   */
  void stop() {
    stopped = true;
    closeSocket();
    synchronized (this) {
      notifyAll();
    }
    if (Thread.currentThread() != thread) {
      try {
        thread.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void closeSocket() {
    Socket current = socket;
    if (current != null) {
      try {
        current.close();
      } catch (IOException e) {
        // closing
      }
    }
  }

  private void run() {
    while (!stopped) {
      boolean reconnectNow = false;
      try {
        follow();
      } catch (IOException | RuntimeException e) {
        if (!stopped) {
          LOGGER.log(
              Level.WARNING,
              "replication with MASTER {0}:{1}: {2}",
              host,
              Integer.toString(port),
              e.getMessage());
        }
        if (e instanceof RedisTransfer.Refused) {
          // refused foreign data: no retry until REPLICAOF is given again
          stopped = true;
        }
      } finally {
        closeSocket();
        Replication.Applier applier = replication.applier();
        if (applier != null) {
          // what was applied before the link broke reaches the log now, not at the next burst
          applier.flush();
          if (clientId != 0) {
            applier.linkDown(clientId);
            clientId = 0;
          }
        }
        if (state == State.CONNECTED && !stopped) {
          LOGGER.log(Level.INFO, "Connection with master lost.");
        }
        // a link that was up reconnects at once (Redis 7's replicationHandleMasterDisconnection:
        // waiting may let the master's backlog move past this replica's offset); a failed attempt
        // is retried a second later, as Redis's replication cron does
        boolean wasUp = state == State.CONNECTED;
        if (wasUp) {
          downSinceMillis = System.currentTimeMillis();
        }
        state(State.CONNECT);
        reconnectNow = wasUp && !stopped;
      }
      if (reconnectNow) {
        LOGGER.log(
            Level.INFO,
            "Reconnecting to MASTER {0}:{1} after failure",
            host,
            Integer.toString(port));
        continue;
      }
      synchronized (this) {
        try {
          if (!stopped) {
            wait(1000);
          }
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  /** One connection: handshake, sync, then the stream until it breaks. */
  private void follow() throws IOException {
    state(State.CONNECTING);
    LOGGER.log(Level.INFO, "Connecting to MASTER {0}:{1}", host, Integer.toString(port));
    Socket connection = new Socket();
    socket = connection;
    if (stopped) {
      throw new SocketException("stopped");
    }
    lastIoMillis = System.currentTimeMillis();
    active = true;
    try {
      // blocking, without a timeout (see active): checkTimeout closes the socket instead
      connection.connect(new InetSocketAddress(host, port));
      connection.setTcpNoDelay(true);
      shakeHands(replication.linkSecurity().secure(connection, host, port));
    } finally {
      active = false;
    }
  }

  /** Handshake, PSYNC and what follows it (a transfer, the stream) on a connected socket. */
  private void shakeHands(Socket connection) throws IOException {
    if (isThisServer(connection)) {
      throw new IOException(
          "the master "
              + host
              + ":"
              + port
              + " is this server itself; a server cannot replicate from itself (REPLICAOF NO"
              + " ONE, or name another server)");
    }
    LOGGER.log(Level.INFO, "MASTER <-> REPLICA sync started");
    state(State.HANDSHAKE);
    // the reader's buffer is the only one: the socket's bytes land in it with one read each
    Resp.Reader in =
        new Resp.Reader(connection.getInputStream(), replication.traffic()::receivedFromMaster);
    synchronized (output) {
      out = new BufferedOutputStream(connection.getOutputStream());
    }
    String pong = ask(in, "PING");
    if (pong.startsWith("-")
        && !pong.startsWith("-NOAUTH")
        && !pong.startsWith("-NOPERM")
        && !pong.startsWith("-ERR operation not permitted")) {
      throw new IOException("Error reply to PING from master: '" + pong + "'");
    }
    LOGGER.log(Level.INFO, "Master replied to PING, replication can continue...");
    ReplicationSettings settings = replication.settings();
    if (settings.masterAuth() != null) {
      String reply =
          settings.masterUser() != null
              ? ask(in, "AUTH", settings.masterUser(), settings.masterAuth())
              : ask(in, "AUTH", settings.masterAuth());
      if (reply.startsWith("-")) {
        throw new IOException("Unable to AUTH to MASTER: " + reply);
      }
    }
    int announcedPort = settings.announcePort() > 0 ? settings.announcePort() : replication.port();
    String reply = ask(in, "REPLCONF", "listening-port", Integer.toString(announcedPort));
    if (reply.startsWith("-")) {
      LOGGER.log(
          Level.INFO,
          "(Non critical) Master does not understand REPLCONF listening-port: " + reply);
    }
    if (settings.announceIp() != null) {
      reply = ask(in, "REPLCONF", "ip-address", settings.announceIp());
      if (reply.startsWith("-")) {
        LOGGER.log(
            Level.INFO, "(Non critical) Master does not understand REPLCONF ip-address: " + reply);
      }
    }
    reply = ask(in, "REPLCONF", "capa", "eof", "capa", "psync2", "capa", Transfer.CAPABILITY);
    if (reply.startsWith("-")) {
      LOGGER.log(Level.INFO, "(Non critical) Master does not understand REPLCONF capa: " + reply);
    }
    String[] request = replication.psyncRequest();
    if (request[0].equals("?")) {
      LOGGER.log(Level.INFO, "Partial resynchronization not possible (no cached master)");
    } else {
      LOGGER.log(
          Level.INFO,
          "Trying a partial resynchronization (request {0}:{1}).",
          request[0],
          request[1]);
    }
    boolean handingOver = replication.handingOver();
    if (handingOver) {
      // a coordinated failover: the replica this server follows now is asked to take over
      send("PSYNC", request[0], request[1], "FAILOVER");
    } else {
      send("PSYNC", request[0], request[1]);
    }
    String answer = in.nonEmptyLine();
    lastIoMillis = System.currentTimeMillis();
    if (handingOver) {
      boolean accepted = answer.startsWith("+FULLRESYNC") || answer.startsWith("+CONTINUE");
      if (!accepted) {
        LOGGER.log(
            Level.WARNING, "the failover target refused to take over: {0}", Resp.clip(answer));
      }
      replication.handedOver(this, accepted);
    }
    if (answer.startsWith("+FULLRESYNC")) {
      String[] parts = answer.split(" ");
      if (parts.length < 3) {
        throw new IOException("Unexpected reply to PSYNC from master: " + answer);
      }
      LOGGER.log(Level.INFO, "Full resync from master: {0}:{1}", parts[1], parts[2]);
      fullSync(in, parts[1], Long.parseLong(parts[2]));
    } else if (answer.startsWith("+CONTINUE")) {
      String newId = answer.length() > "+CONTINUE ".length() ? answer.substring(10).trim() : null;
      replication.continued(this, newId);
      LOGGER.log(
          Level.INFO, "MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.");
      connected();
      becomeClient(true);
      stream(in, null);
    } else if (answer.startsWith("-NOMASTERLINK") || answer.startsWith("-LOADING")) {
      throw new IOException(
          "Master is currently unable to PSYNC but should be in the future: " + answer);
    } else {
      throw new IOException(
          "Unexpected reply to PSYNC from master: "
              + Resp.clip(answer)
              + " (is "
              + host
              + ":"
              + port
              + " a cuckoo-server?)");
    }
  }

  private void connected() {
    state(State.CONNECTED);
    downSinceMillis = 0;
    LOGGER.log(Level.INFO, "MASTER <-> REPLICA sync: Finished with success");
  }

  /**
   * Makes the link a client of this server, as Redis creates its master client once the stream
   * starts; {@code continued} after +CONTINUE, when a client of an earlier connection resumes.
   */
  private void becomeClient(boolean continued) {
    Socket connection = socket;
    clientId =
        replication
            .applier()
            .linkUp(
                connection.getRemoteSocketAddress(),
                connection.getLocalSocketAddress(),
                continued && wasClient,
                this::closeSocket);
    wasClient = true;
  }

  /** Returns true if the connection leads back to this server's own listening socket. */
  private boolean isThisServer(Socket connection) throws SocketException {
    InetAddress remote = connection.getInetAddress();
    if (connection.getPort() != replication.port()) {
      return false;
    }
    return remote.isLoopbackAddress()
        || remote.isAnyLocalAddress()
        || NetworkInterface.getByInetAddress(remote) != null;
  }

  private String ask(Resp.Reader in, String... command) throws IOException {
    send(command);
    String reply = in.nonEmptyLine();
    lastIoMillis = System.currentTimeMillis();
    return reply;
  }

  private void send(String... command) throws IOException {
    synchronized (output) {
      out.write(Resp.command(command));
      out.flush();
    }
  }

  /**
   * REPLCONF ACK offset FACK fsyncedOffset, once a second, when the master asks (GETACK, {@code
   * asked}) and when an fsync covers what it asked for; without FACK when this server keeps no log,
   * as Redis.
   */
  void sendAck(long offset, boolean asked) {
    if (state != State.CONNECTED) {
      return;
    }
    long fsynced = replication.fsyncedOffset(offset, asked);
    try {
      if (fsynced < 0) {
        send("REPLCONF", "ACK", Long.toString(offset));
      } else {
        send("REPLCONF", "ACK", Long.toString(offset), "FACK", Long.toString(fsynced));
      }
    } catch (IOException e) {
      closeSocket();
    }
  }

  /** Receives the transfer, brings it up to date in a fresh keyspace, swaps it in, follows on. */
  private void fullSync(Resp.Reader in, String masterId, long masterOffset) throws IOException {
    state(State.TRANSFER);
    String header = in.nonEmptyLine();
    if (header.startsWith("$EOF:")) {
      // a diskless transfer: an RDB of unknown length, then the 40-byte mark the header names
      String mark = header.substring(5);
      if (mark.length() != EOF_MARK_BYTES) {
        throw new IOException(
            "unexpected transfer header from master: '" + Resp.clip(header) + "'");
      }
      transferSize = -1;
      transferRead = 0;
      redisSync(in, masterId, masterOffset, transferStream(in, -1, new byte[0]), mark);
      return;
    }
    if (!header.startsWith("$")) {
      throw new IOException("unexpected transfer header from master: '" + Resp.clip(header) + "'");
    }
    long length = Long.parseLong(header.substring(1));
    transferSize = length;
    transferRead = 0;
    byte[] magic = new byte[(int) Math.min(SNAPSHOT_MAGIC.length, length)];
    in.readFully(magic, magic.length);
    transferRead = magic.length;
    if (startsWith(magic, RDB_MAGIC)) {
      redisSync(in, masterId, masterOffset, transferStream(in, length, magic), null);
      return;
    }
    if (!Arrays.equals(magic, SNAPSHOT_MAGIC)) {
      throw new IOException(
          "the master "
              + host
              + ":"
              + port
              + " sent a transfer that is neither a cuckoo-server snapshot nor a Redis RDB (it"
              + " begins '"
              + Resp.clip(new String(magic, StandardCharsets.ISO_8859_1))
              + "')");
    }
    LOGGER.log(
        Level.INFO,
        "MASTER <-> REPLICA sync: receiving and loading {0} bytes from master",
        Long.toString(length));
    long began = System.nanoTime();
    Keyspace fresh = new Keyspace(replication.databases());
    fresh.loading(true);
    Transfer.Loaded loaded;
    try {
      loaded = Transfer.load(transferStream(in, length, magic), length, fresh);
    } catch (IOException e) {
      if (e.getCause() instanceof dev.cuckoo.FilterFormatException) {
        throw new IOException(
            "the transfer from the master failed its check, keeping the old data: "
                + e.getMessage(),
            e);
      }
      throw e;
    }
    if (loaded.start() != masterOffset) {
      throw new IOException(
          "the transfer was cut at offset "
              + loaded.start()
              + " but the master announced "
              + masterOffset);
    }
    LOGGER.log(
        Level.INFO,
        "MASTER <-> REPLICA sync: loaded {0} keys ({1} bytes) in {2} ms; applying the stream up to"
            + " offset {3}",
        Long.toString(loaded.keys()),
        Long.toString(length),
        Long.toString((System.nanoTime() - began) / 1_000_000),
        Long.toString(loaded.last()));
    db = 0;
    CatchUp catchUp = new CatchUp(fresh, loaded, masterId, masterOffset);
    if (loaded.last() <= masterOffset) {
      catchUp.finish(masterOffset);
    }
    stream(in, catchUp);
  }

  private static boolean startsWith(byte[] bytes, byte[] prefix) {
    return bytes.length >= prefix.length
        && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
  }

  /**
   * The transfer's {@code length} bytes (−1: until the reader stops, a diskless RDB) as a stream
   * read straight from the connection (no copy on disk), {@code first} (already read) first;
   * reading them counts progress for INFO.
   */
  private InputStream transferStream(Resp.Reader in, long length, byte[] first) {
    boolean bounded = length >= 0;
    InputStream rest =
        new InputStream() {
          private long left = bounded ? length - first.length : Long.MAX_VALUE;

          @Override
          public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
          }

          @Override
          public int read(byte[] into, int offset, int wanted) throws IOException {
            if (left == 0) {
              return -1;
            }
            int n = in.readSome(into, offset, (int) Math.min(wanted, left));
            if (n < 0) {
              throw new IOException(
                  "the master closed the connection after "
                      + transferRead
                      + " bytes of the transfer"
                      + (bounded ? "'s " + length : ""));
            }
            left -= n;
            transferRead += n;
            lastIoMillis = System.currentTimeMillis();
            return n;
          }
        };
    return new java.io.SequenceInputStream(new java.io.ByteArrayInputStream(first), rest);
  }

  /**
   * A full transfer from a Redis master: its RDB (the {@code length} bytes that {@code rdb} gives,
   * or a diskless one followed by {@code eofMark}) read as it arrives into a fresh keyspace, which
   * replaces the live one at once, the RDB being the master's data at {@code masterOffset}; then
   * the stream follows.
   */
  private void redisSync(
      Resp.Reader in, String masterId, long masterOffset, InputStream rdb, String eofMark)
      throws IOException {
    redisMaster = true;
    LOGGER.log(
        Level.INFO,
        "MASTER <-> REPLICA sync: receiving a Redis RDB from master ({0})",
        eofMark != null ? "diskless" : transferSize + " bytes on disk");
    long began = System.nanoTime();
    Keyspace fresh = new Keyspace(replication.databases());
    fresh.loading(true);
    RedisTransfer.Loaded loaded =
        RedisTransfer.load(rdb, fresh, replication.settings().ignoreForeignTypes());
    if (eofMark != null) {
      in.unread(loaded.unconsumed());
      byte[] mark = new byte[EOF_MARK_BYTES];
      in.readFully(mark, mark.length);
      if (!new String(mark, StandardCharsets.ISO_8859_1).equals(eofMark)) {
        throw new IOException(
            "the diskless transfer's RDB is not followed by the EOF mark its header announced");
      }
    } else if (rdb.read() >= 0 || loaded.unconsumed().length > 0) {
      throw new IOException(
          "the transfer's RDB ended before the " + transferSize + " bytes its header announced");
    }
    RdbReader.Summary summary = loaded.summary();
    replication.foreignKeys(summary.foreign());
    LOGGER.log(
        Level.INFO,
        "MASTER <-> REPLICA sync: loaded a Redis RDB (version {0}, {1} bytes) in {2} ms: {3}"
            + " cuckoo filters; skipped {4} keys of types this server does not hold ({5}), {6}"
            + " function libraries, {7} module aux data",
        Integer.toString(summary.version()),
        Long.toString(summary.bytes()),
        Long.toString((System.nanoTime() - began) / 1_000_000),
        Long.toString(summary.filters()),
        Long.toString(summary.foreign().total()),
        summary.foreign().total() == 0 ? "none" : summary.foreign().toString(),
        Long.toString(summary.functions()),
        Long.toString(summary.moduleAux()));
    db = 0;
    fresh.loading(false);
    replication.swapIn(this, fresh, masterId, masterOffset, new byte[0], db);
    connected();
    becomeClient(false);
    stream(in, null);
  }

  /**
   * A write of a Redis master to a type this server does not hold: counted (or refused, with
   * replica-ignore-foreign-types no); returns the DEL of the keys it replaces here, else null.
   */
  private byte[][] foreignWrite(byte[][] args) throws RedisTransfer.Refused {
    String type = ForeignWrites.typeOf(args[0]);
    if (!replication.settings().ignoreForeignTypes()) {
      throw RedisTransfer.refused("a write " + Args.text(args[0]).toUpperCase(), type);
    }
    replication.foreignWrite(type);
    byte[][] replaced = ForeignWrites.replacedKeys(args);
    if (replaced.length == 0) {
      return null;
    }
    byte[][] del = new byte[replaced.length + 1][];
    del[0] = DEL;
    System.arraycopy(replaced, 0, del, 1, replaced.length);
    return del;
  }

  /**
   * The stream after a transfer, applied to the fresh keyspace (nothing logged) until every key is
   * past the number it was written with; then the fresh keyspace replaces the live one.
   */
  private final class CatchUp {
    final Keyspace fresh;
    final Transfer.Loaded loaded;
    final LogReader.RecordSink replay;
    final String masterId;
    final long masterOffset;
    final java.io.ByteArrayOutputStream applied = new java.io.ByteArrayOutputStream();
    boolean done;

    CatchUp(Keyspace fresh, Transfer.Loaded loaded, String masterId, long masterOffset) {
      this.fresh = fresh;
      this.loaded = loaded;
      this.masterId = masterId;
      this.masterOffset = masterOffset;
      this.replay = loaded.replay(replication.replayer(fresh), replication.rules(), fresh);
    }

    void apply(long end, int db, byte[][] args) throws IOException {
      replay.accept(end, db, args, end);
    }

    /** Swaps the caught-up keyspace in; the stream then goes to the live keyspace. */
    void finish(long offsetNow) throws IOException {
      fresh.loading(false);
      replication.swapIn(MasterLink.this, fresh, masterId, masterOffset, applied.toByteArray(), db);
      done = true;
      connected();
      becomeClient(false);
      LOGGER.log(
          Level.INFO,
          "MASTER <-> REPLICA sync: the received data replaced the old data at offset {0}",
          Long.toString(offsetNow));
    }
  }

  /**
   * Drops the link if the master sent nothing (no data, no PING) for repl-timeout seconds, while
   * connecting, shaking hands, receiving the transfer or following the stream, as Redis's
   * replication cron does; the link then reconnects and continues.
   */
  void checkTimeout(long nowMillis) {
    if (active && nowMillis - lastIoMillis > replication.settings().timeoutSeconds() * 1000L) {
      LOGGER.log(
          Level.WARNING,
          switch (state) {
            case CONNECTING, HANDSHAKE -> "Timeout connecting to the MASTER...";
            case TRANSFER ->
                "Timeout receiving bulk data from MASTER... If the problem persists try to set the"
                    + " 'repl-timeout' parameter to a larger value.";
            default -> "MASTER timeout: no data nor PING received...";
          });
      closeSocket();
    }
  }

  /** Applies the stream until the link breaks; {@code catchUp} first, if a transfer preceded. */
  private void stream(Resp.Reader in, CatchUp catchUp) throws IOException {
    // bytes held back while a transaction is read: its offset moves once it is applied
    java.io.ByteArrayOutputStream held = new java.io.ByteArrayOutputStream();
    List<Transaction.Write> multi = null;
    int multiDb = -1;
    long offset = catchUp != null ? catchUp.masterOffset : replication.replicaOffset();
    long unflushed = 0;
    while (!stopped) {
      byte[][] args = in.command();
      lastIoMillis = System.currentTimeMillis();
      // the command's bytes as the master sent them: they extend the offset and the backlog
      byte[] raw = in.commandBuffer();
      int rawFrom = in.commandStart();
      int rawLength = in.commandLength();
      boolean pending = catchUp != null && !catchUp.done;
      byte[] name = args[0];
      // a command this server does not have writes a type it does not hold: from a Redis master
      // (also one followed again with +CONTINUE after this server restarted, before any transfer
      // told its kind), never from a cuckoo-server of the same version
      if (!replication.applier().knows(name)) {
        byte[][] delete = foreignWrite(args);
        if (delete != null && multi != null) {
          multi.add(new Transaction.Write(db, delete));
        } else if (delete != null) {
          long end = offset + rawLength;
          replication
              .applier()
              .apply(db, delete, new StreamMark(replication.replicationId(), offset, end, db));
        }
      } else if (Args.equalsIgnoreCase(name, SELECT)) {
        Long selected = Numbers.parseLong(args.length > 1 ? args[1] : new byte[0]);
        if (selected == null || selected < 0 || selected >= replication.databases()) {
          throw new IOException("the master selected database " + Args.text(args[1]));
        }
        db = (int) (long) selected;
        if (!pending && multi == null) {
          // run as a command, as Redis's master client does: MONITOR shows it, CLIENT LIST's cmd
          replication.applier().apply(db, args, null);
        }
      } else if (Args.equalsIgnoreCase(name, PING)) {
        if (!pending) {
          replication.applier().apply(db, args, null);
        }
      } else if (multi == null && isMessage(name)) {
        // to this server's subscribers at once, even while a transfer catches up (no key)
        long end = offset + rawLength;
        replication
            .applier()
            .apply(db, args, new StreamMark(replication.replicationId(), offset, end, db));
      } else if (Args.equalsIgnoreCase(name, REPLCONF)) {
        if (args.length > 1 && Args.lower(args[1]).equals("getack")) {
          sendAck(offset, true);
        }
      } else if (Args.equalsIgnoreCase(name, MULTI)) {
        multi = new ArrayList<>();
        multiDb = db;
      } else if (Args.equalsIgnoreCase(name, EXEC)) {
        if (multi == null) {
          throw new IOException("the master sent EXEC without MULTI");
        }
        held.write(raw, rawFrom, rawLength);
        raw = held.toByteArray();
        rawFrom = 0;
        rawLength = raw.length;
        held.reset();
        long end = offset + rawLength;
        if (!multi.isEmpty()) {
          if (pending) {
            Transaction transaction = new Transaction(multi.size());
            for (Transaction.Write write : multi) {
              if (isMessage(write.args[0])) {
                // to this server's subscribers at once, as a message outside a transaction
                StreamMark here =
                    new StreamMark(replication.replicationId(), offset, offset, write.db);
                replication.applier().apply(write.db, write.args, here);
              } else {
                transaction.add(write.db, write.args);
              }
            }
            if (!transaction.writes().isEmpty()) {
              catchUp.apply(end, multiDb, transaction.encode());
            }
          } else {
            replication
                .applier()
                .applyTransaction(
                    multiDb, multi, new StreamMark(replication.replicationId(), offset, end, db));
          }
        }
        multi = null;
      } else if (multi != null) {
        multi.add(new Transaction.Write(db, args));
      } else if (pending) {
        catchUp.apply(offset + rawLength, db, args);
      } else {
        long end = offset + rawLength;
        replication
            .applier()
            .apply(db, args, new StreamMark(replication.replicationId(), offset, end, db));
      }
      if (multi != null) {
        held.write(raw, rawFrom, rawLength);
        continue;
      }
      offset += rawLength;
      if (pending) {
        catchUp.applied.write(raw, rawFrom, rawLength);
        if (offset >= catchUp.loaded.last()) {
          catchUp.finish(offset);
        }
      } else {
        replication.applied(this, raw, rawFrom, rawLength);
        // one log write covers a burst, and a long burst every so many bytes
        unflushed += rawLength;
        if (unflushed >= FLUSH_BYTES || !in.hasBuffered()) {
          unflushed = 0;
          replication.applier().flush();
        }
      }
    }
  }

  /** The most stream bytes applied before their log records are written, however long a burst. */
  private static final int FLUSH_BYTES = 256 * 1024;

  private static final byte[] SELECT = ascii("select");
  private static final byte[] DEL = ascii("DEL");
  private static final byte[] PING = ascii("ping");
  private static final byte[] PUBLISH = ascii("publish");
  private static final byte[] SPUBLISH = ascii("spublish");
  private static final byte[] REPLCONF = ascii("replconf");
  private static final byte[] MULTI = ascii("multi");
  private static final byte[] EXEC = ascii("exec");

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  /** Returns true if the command publishes a message (PUBLISH, SPUBLISH): no key, not logged. */
  private static boolean isMessage(byte[] name) {
    return Args.equalsIgnoreCase(name, PUBLISH) || Args.equalsIgnoreCase(name, SPUBLISH);
  }
}
