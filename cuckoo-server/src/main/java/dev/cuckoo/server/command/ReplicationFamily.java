package dev.cuckoo.server.command;

import static dev.cuckoo.server.command.Argument.INTEGER;
import static dev.cuckoo.server.command.Argument.STRING;
import static dev.cuckoo.server.command.Argument.arg;
import static dev.cuckoo.server.command.Argument.block;
import static dev.cuckoo.server.command.Argument.oneOf;
import static dev.cuckoo.server.command.Argument.token;
import static dev.cuckoo.server.command.CommandSpec.command;

import dev.cuckoo.server.keyspace.CommandClock;
import dev.cuckoo.server.persist.StreamMark;
import dev.cuckoo.server.persist.Transaction;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Authentication;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.replication.Replication;
import dev.cuckoo.server.session.ClientPause;
import dev.cuckoo.server.session.ClientRegistry;
import dev.cuckoo.server.session.MasterClient;
import dev.cuckoo.server.session.Session;
import io.netty.channel.Channel;
import java.lang.System.Logger.Level;
import java.net.SocketAddress;
import java.util.List;

/**
 * The replication commands: REPLICAOF, SLAVEOF, REPLCONF, PSYNC, SYNC, WAIT and WAITAOF (ROLE is
 * with the server commands). Flags, categories and docs as Redis 8 reports them.
 *
 * <p>The handlers answer as Redis 8 does, and the replica's side of the stream: the master's writes
 * run through the table on a session of their own that is never refused and logs what it applies.
 */
final class ReplicationFamily {
  private static final System.Logger LOGGER = System.getLogger(ReplicationFamily.class.getName());

  private final Commands commands;
  private final ServerContext context;

  private final WritePath writes;

  ReplicationFamily(Commands commands, ServerContext context, WritePath writes) {
    this.commands = commands;
    this.context = context;
    this.writes = writes;
  }

  private static byte[] ascii(String text) {
    return text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }

  private Replication replication(Session session) {
    Replication replication = context.replication();
    if (replication == null) {
      session.reply().error("ERR replication is not available on this server");
    }
    return replication;
  }

  /** REPLICAOF host port | NO ONE (and SLAVEOF). */
  void replicaOf(Session session, Request request) {
    byte[][] args = request.args();
    if (context.cluster() != null) {
      // a cluster node's master is set by CLUSTER REPLICATE and by failovers
      session.reply().error("ERR REPLICAOF not allowed in cluster mode.");
      return;
    }
    Replication replication = replication(session);
    if (replication == null) {
      return;
    }
    Reply reply = session.reply();
    if (replication.failingOver()) {
      reply.error("ERR REPLICAOF not allowed while failing over.");
      return;
    }
    if (Args.lower(args[1]).equals("no") && Args.lower(args[2]).equals("one")) {
      if (replication.isReplica()) {
        replication.promote();
        LOGGER.log(Level.INFO, "MASTER MODE enabled (user request from ''id={0}'')", session.id());
      }
      reply.ok();
      return;
    }
    if (replication.hasReplica(session.id())) {
      reply.error("ERR Command is not valid when client is a replica.");
      return;
    }
    Long port = Numbers.parseLong(args[2]);
    if (port == null || port < 0 || port > 65535) {
      reply.error("ERR Invalid master port");
      return;
    }
    String host = Args.text(args[1]);
    if (!replication.replicaOf(host, (int) (long) port)) {
      LOGGER.log(
          Level.INFO,
          "REPLICAOF would result into synchronization with the master we are already connected"
              + " with. No operation performed.");
      reply.simple("OK Already connected to specified master");
      return;
    }
    reply.ok();
  }

  /** REPLCONF option value [option value ...]. */
  void replconf(Session session, Request request) {
    byte[][] args = request.args();
    Replication replication = replication(session);
    if (replication == null) {
      return;
    }
    Reply reply = session.reply();
    if (args.length % 2 == 0) {
      reply.error(Args.SYNTAX_ERROR);
      return;
    }
    Channel channel = channelOf(session);
    for (int i = 1; i < args.length; i += 2) {
      String option = Args.lower(args[i]);
      String value = Args.text(args[i + 1]);
      switch (option) {
        case "listening-port" -> {
          Long port = Numbers.parseLong(args[i + 1]);
          if (port == null) {
            reply.error("ERR value is not an integer or out of range");
            return;
          }
          replication.announce(session.id(), channel, option, Long.toString(port));
        }
        case "ip-address" -> replication.announce(session.id(), channel, option, value);
        case "capa" -> replication.announce(session.id(), channel, option, value);
        case "rdb-only", "rdb-filter-only" -> {
          // accepted; the transfer is this server's own format
        }
        case "ack" -> {
          Long offset = Numbers.parseLong(args[i + 1]);
          // REPLCONF ACK offset FACK fsyncedOffset (Redis 7.2): how far the replica's log is forced
          Long fsynced =
              args.length > i + 3 && Args.lower(args[i + 2]).equals("fack")
                  ? Numbers.parseLong(args[i + 3])
                  : null;
          if (offset != null) {
            replication.ack(session.id(), offset, fsynced == null ? -1 : fsynced);
          }
          // a replica's ACK is never answered
          return;
        }
        case "getack" -> {
          // a master asks its replica; a master itself has nothing to acknowledge
          return;
        }
        default -> {
          reply.error("ERR Unrecognized REPLCONF option: " + Args.text(args[i]));
          return;
        }
      }
    }
    reply.ok();
  }

  /**
   * PSYNC replicationid offset [FAILOVER]: with FAILOVER, the master this replica follows hands
   * over (a coordinated failover): the replica becomes a master, then answers the PSYNC as one.
   */
  void psync(Session session, Request request) {
    byte[][] args = request.args();
    if (args.length > 3 && Args.lower(args[3]).equals("failover") && !takeOver(session, args)) {
      return;
    }
    Long offset = Numbers.parseLong(args[2]);
    if (offset == null) {
      session.reply().error("ERR value is not an integer or out of range");
      return;
    }
    startSync(session, Args.text(args[1]), offset);
  }

  /** The replica's side of PSYNC … FAILOVER; false when refused (the error is written). */
  private boolean takeOver(Session session, byte[][] args) {
    Replication replication = replication(session);
    if (replication == null) {
      return false;
    }
    if (replication.hasReplica(session.id()) && replication.isStreaming(session.id())) {
      // Redis ignores SYNC/PSYNC from a connection that is already a replica
      return false;
    }
    String id = Args.text(args[1]);
    LOGGER.log(Level.INFO, "Failover request received for replid {0}.", id);
    String error = replication.takeOver(id);
    if (error != null) {
      session.reply().error(error);
      return false;
    }
    LOGGER.log(Level.INFO, "MASTER MODE enabled (failover request from ''id={0}'')", session.id());
    return true;
  }

  /** FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT milliseconds], as Redis 6.2+. */
  void failover(Session session, Request request) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    if (context.cluster() != null) {
      reply.error(
          "ERR FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command instead.");
      return;
    }
    Replication replication = replication(session);
    if (replication == null) {
      return;
    }
    if (args.length == 2 && Args.lower(args[1]).equals("abort")) {
      String error = replication.abortFailover();
      if (error != null) {
        reply.error(error);
      } else {
        reply.ok();
      }
      return;
    }
    long timeout = 0;
    boolean force = false;
    String host = null;
    long port = 0;
    for (int j = 1; j < args.length; j++) {
      String option = Args.lower(args[j]);
      if (option.equals("timeout") && j + 1 < args.length && timeout == 0) {
        Long value = Numbers.parseLong(args[j + 1]);
        if (value == null) {
          reply.error("ERR value is not an integer or out of range");
          return;
        }
        if (value <= 0) {
          reply.error("ERR FAILOVER timeout must be greater than 0");
          return;
        }
        timeout = value;
        j++;
      } else if (option.equals("to") && j + 2 < args.length && host == null) {
        Long value = Numbers.parseLong(args[j + 2]);
        if (value == null) {
          reply.error("ERR value is not an integer or out of range");
          return;
        }
        host = Args.text(args[j + 1]);
        port = value;
        j += 2;
      } else if (option.equals("force") && !force) {
        force = true;
      } else {
        reply.error(Args.SYNTAX_ERROR);
        return;
      }
    }
    // a port no replica can announce matches no replica (Redis compares it as a long)
    int replicaPort = port < 0 || port > 65535 ? -1 : (int) port;
    String error = replication.failover(host, replicaPort, timeout, force);
    if (error != null) {
      reply.error(error);
      return;
    }
    reply.ok();
  }

  /** SYNC: a full copy without the +FULLRESYNC line (old replicas). */
  void sync(Session session, Request request) {
    startSync(session, null, -1);
  }

  private void startSync(Session session, String replicationId, long offset) {
    Replication replication = replication(session);
    if (replication == null) {
      return;
    }
    if (replication.hasReplica(session.id()) && replication.isStreaming(session.id())) {
      // Redis ignores SYNC/PSYNC from a connection that is already a replica
      return;
    }
    String error = replication.psync(session.id(), channelOf(session), replicationId, offset);
    if (error != null) {
      session.reply().error(error);
      return;
    }
    // CLIENT LIST flags=S, CLIENT KILL TYPE replica
    context.clients().mark(session, ClientRegistry.Role.REPLICA);
  }

  private Channel channelOf(Session session) {
    ClientRegistry.Client client = context.clients().get(session.id());
    return client == null ? null : client.channel();
  }

  /** WAIT numreplicas timeout. */
  void waitFor(Session session, Request request) {
    byte[][] args = request.args();
    Replication replication = replication(session);
    if (replication == null) {
      return;
    }
    Reply reply = session.reply();
    if (replication.isReplica()) {
      reply.error(
          "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0"
              + " if a replica is configured to be writable (which is not the default) writes to"
              + " replicas are just local and are not propagated.");
      return;
    }
    Long replicas = Numbers.parseLong(args[1]);
    if (replicas == null) {
      reply.error("ERR value is not an integer or out of range");
      return;
    }
    Long timeout = Commands.timeoutMillis(reply, args[2]);
    if (timeout == null) {
      return;
    }
    int wanted = (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, replicas));
    // inside MULTI WAIT does not block: asking for nothing, it answers how many have acknowledged
    boolean blocks = session.transaction() == null;
    java.util.concurrent.CompletableFuture<Integer> done =
        replication.waitFor(session.id(), session.streamOffset(), blocks ? wanted : 0, timeout);
    answerOrBlock(session, done, timeout, (out, count) -> out.integer(count));
  }

  /** WAITAOF numlocal numreplicas timeout. */
  void waitAof(Session session, Request request) {
    byte[][] args = request.args();
    Replication replication = replication(session);
    if (replication == null) {
      return;
    }
    Reply reply = session.reply();
    Long local = Commands.rangeLong(reply, args[1], 0, 1, null);
    if (local == null) {
      return;
    }
    Long replicas =
        Commands.rangeLong(
            reply, args[2], 0, Long.MAX_VALUE, "ERR value is out of range, must be positive");
    if (replicas == null) {
      return;
    }
    Long timeout = Commands.timeoutMillis(reply, args[3]);
    if (timeout == null) {
      return;
    }
    if (replication.isReplica()) {
      reply.error(
          "ERR WAITAOF cannot be used with replica instances. Please also note that writes to"
              + " replicas are just local and are not propagated.");
      return;
    }
    if (local == 1 && context.persistence() == null) {
      reply.error(APPENDONLY_DISABLED);
      return;
    }
    // inside MULTI WAITAOF does not block: asking for nothing, it answers what is reached now
    boolean blocks = session.transaction() == null;
    java.util.concurrent.CompletableFuture<Replication.Acks> done =
        replication.waitForFsync(
            session.id(),
            session.streamOffset(),
            session.lastWriteLsn(),
            blocks ? (int) (long) local : 0,
            blocks ? (int) Math.min(Integer.MAX_VALUE, replicas) : 0,
            timeout);
    answerOrBlock(session, done, timeout, ReplicationFamily::writeAcks);
  }

  /**
   * Answers a WAIT or WAITAOF with {@code write} at once if {@code done} has completed, else blocks
   * the connection until it does (with a timeout other than 0, in Redis's timeout table); a failed
   * wait (its server became a replica meanwhile) gets {@link #unblocked}.
   */
  private static <T> void answerOrBlock(
      Session session,
      java.util.concurrent.CompletableFuture<T> done,
      long timeoutMillis,
      java.util.function.BiConsumer<Reply, T> write) {
    if (done.isDone()) {
      write.accept(session.reply(), done.join());
      return;
    }
    session.defer(
        done.handle(
            (value, error) ->
                error == null ? out -> write.accept(out, value) : unblocked(session, error)));
    if (timeoutMillis > 0) {
      session.blockWithTimeout();
    } else {
      session.block();
    }
  }

  /**
   * The reply of a WAIT or WAITAOF whose future failed: CLIENT UNBLOCK ERROR ended it (Redis's
   * -UNBLOCKED error), or its server became a replica while it waited (Redis's other -UNBLOCKED
   * error, then the connection is closed).
   */
  private static java.util.function.Consumer<Reply> unblocked(Session session, Throwable error) {
    Throwable cause =
        error instanceof java.util.concurrent.CompletionException ? error.getCause() : error;
    if (cause instanceof Replication.Unblocked unblocked && unblocked.byClient()) {
      // CLIENT UNBLOCK ERROR: Redis's unblockClientOnError, the connection stays
      return out -> out.error(Replication.Unblocked.BY_CLIENT);
    }
    return out -> {
      out.error(Replication.Unblocked.MESSAGE);
      session.requestClose();
    };
  }

  private static final String APPENDONLY_DISABLED =
      "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.";

  /**
   * Writes WAITAOF's reply: [local fsyncs, replicas], or the error if appendonly was turned off.
   */
  private static void writeAcks(Reply out, Replication.Acks acks) {
    if (acks.local() < 0) {
      out.error(APPENDONLY_DISABLED);
      return;
    }
    out.array(2);
    out.integer(acks.local());
    out.integer(acks.replicas());
  }

  /** Returns how the master's stream is applied on this server when it is a replica. */
  Replication.Applier applier() {
    Session session =
        new Session(
            // no replies kept, as Redis keeps none for its master client: only an error is looked
            // at
            0, Reply.discarding(), new Authentication(true), false);
    session.fromMaster(true);
    session.linkAddress(
        () -> {
          Replication replication = context.replication();
          java.net.InetSocketAddress master =
              replication == null ? null : replication.masterAddress();
          return master == null ? "" : ClientRegistry.address(master);
        });
    MasterClient master = new MasterClient(context::nextClientId, context.clients(), session);
    return new Replication.Applier() {
      @Override
      public void apply(int db, byte[][] args, StreamMark mark) {
        synchronized (master.lock) {
          CommandClock.enterAt(Long.MIN_VALUE);
          try {
            session.db(db);
            session.streamMark(mark);
            commands.execute(session, args);
          } finally {
            CommandClock.exit();
          }
          session.interacted(System.currentTimeMillis());
        }
        settle(session, args);
      }

      @Override
      public void applyTransaction(int db, List<Transaction.Write> writes, StreamMark mark) {
        synchronized (master.lock) {
          CommandClock.enterAt(Long.MIN_VALUE);
          try {
            session.streamMark(mark);
            runTransaction(db, writes);
          } finally {
            CommandClock.exit();
          }
          session.interacted(System.currentTimeMillis());
        }
        settle(session, writes.isEmpty() ? new byte[][] {ascii("EXEC")} : writes.get(0).args);
      }

      @Override
      public long linkUp(
          SocketAddress masterAddress, SocketAddress local, boolean resumed, Runnable close) {
        return master.up(masterAddress, local, resumed, close);
      }

      @Override
      public void linkDown(long id) {
        master.down(id);
      }

      @Override
      public void flush() {
        if (session.lastLogged() != 0 && context.persistence() != null) {
          context.persistence().commit(session.firstLogged(), session.lastLogged());
        }
        session.clearLogged();
      }

      @Override
      public boolean knows(byte[] name) {
        return commands.find(Args.lower(name)) != null;
      }

      @Override
      public void markStream(StreamMark mark) {
        ReplicationFamily.this.writes.markStream(mark);
      }

      @Override
      public void pauseWrites(boolean on) {
        if (on) {
          context
              .clientPause()
              .pause(ClientPause.Purpose.FAILOVER, Long.MAX_VALUE, ClientPause.Mode.WRITE);
        } else {
          context.clientPause().unpause(ClientPause.Purpose.FAILOVER);
        }
      }

      @Override
      public boolean markStreamDurably(StreamMark mark) {
        long lsn = ReplicationFamily.this.writes.logMark(mark);
        return lsn == 0 || context.persistence() == null || context.persistence().force(lsn);
      }

      private void runTransaction(int db, List<Transaction.Write> writes) {
        session.db(db);
        commands.execute(session, new byte[][] {ascii("MULTI")});
        int current = db;
        for (Transaction.Write write : writes) {
          if (write.db != current) {
            commands.execute(
                session, new byte[][] {ascii("SELECT"), ascii(Integer.toString(write.db))});
            current = write.db;
          }
          commands.execute(session, write.args);
        }
        commands.execute(session, new byte[][] {ascii("EXEC")});
      }
    };
  }

  /**
   * Drops the replies of the link's session, logging an error a write of the master got here (the
   * data sets then differ).
   */
  private void settle(Session session, byte[][] args) {
    // a command that logged nothing leaves its mark unused: the stream stands where the last did
    session.takeStreamMark();
    String error = session.reply().takeErrorReply();
    if (error != null) {
      LOGGER.log(
          Level.WARNING,
          "a write of the master failed on this replica ({0}): -{1}",
          Args.text(args[0]),
          error.trim());
    }
  }

  /** REPLICAOF and its older name SLAVEOF: the same command under two names. */
  private static CommandSpec.Builder replicaOf(
      String name, ReplicationFamily replication, Argument hostPort) {
    return command(name)
        .arity(3)
        .flags("admin", "noscript", "stale", "no_async_loading")
        .categories("admin", "slow", "dangerous")
        .group("server")
        .complexity("O(1)")
        .arguments(hostPort)
        .handler(replication::replicaOf);
  }

  /**
   * Returns the entries, bound to handlers built from {@code parts}.
   *
   * @param parts what the handlers are built from
   */
  static List<CommandSpec.Builder> entries(Families.Parts parts) {
    ReplicationFamily replication =
        new ReplicationFamily(parts.commands(), parts.context(), parts.writes());
    Argument hostPort =
        oneOf(
            "args",
            block("host-port", arg("host", STRING), arg("port", INTEGER)),
            block("no-one", token("no", "NO"), token("one", "ONE")));
    return List.of(
        replicaOf("replicaof", replication, hostPort)
            .summary("Configures a server as replica of another, or promotes it to a master.")
            .since("5.0.0"),
        replicaOf("slaveof", replication, hostPort)
            .summary(
                "Sets a Redis server as a replica of another, or promotes it to being a master.")
            .since("1.0.0")
            .docFlags("deprecated")
            .deprecatedSince("5.0.0")
            .replacedBy("`REPLICAOF`"),
        command("replconf")
            .arity(-1)
            .flags("admin", "noscript", "loading", "stale", "allow_busy")
            .categories("admin", "slow", "dangerous")
            .summary("An internal command for configuring the replication stream.")
            .group("server")
            .since("3.0.0")
            .complexity("O(1)")
            .docFlags("syscmd")
            .handler(replication::replconf),
        command("psync")
            .arity(-3)
            .flags("admin", "noscript", "no_async_loading", "no_multi")
            .categories("admin", "slow", "dangerous")
            .summary("An internal command used in replication.")
            .group("server")
            .since("2.8.0")
            .complexity("")
            .arguments(arg("replicationid", STRING), arg("offset", INTEGER))
            .handler(replication::psync),
        command("failover")
            .arity(-1)
            .flags("admin", "noscript", "stale")
            .categories("admin", "slow", "dangerous")
            .summary("Starts a coordinated failover from a server to one of its replicas.")
            .group("server")
            .since("6.2.0")
            .complexity("O(1)")
            .arguments(
                block(
                        "target",
                        arg("host", STRING),
                        arg("port", INTEGER),
                        token("force", "FORCE").optional())
                    .token("TO")
                    .optional(),
                token("abort", "ABORT").optional(),
                arg("milliseconds", INTEGER).token("TIMEOUT").optional())
            .handler(replication::failover),
        command("sync")
            .arity(1)
            .flags("admin", "noscript", "no_async_loading", "no_multi")
            .categories("admin", "slow", "dangerous")
            .summary("An internal command used in replication.")
            .group("server")
            .since("1.0.0")
            .complexity("")
            .handler(replication::sync),
        command("wait")
            .arity(3)
            .flags("blocking")
            .categories("slow", "blocking", "connection")
            .tips("request_policy:all_shards", "response_policy:agg_min")
            .summary(
                "Blocks until the asynchronous replication of all preceding write commands sent by"
                    + " the connection is completed.")
            .group("generic")
            .since("3.0.0")
            .complexity("O(1)")
            .arguments(arg("numreplicas", INTEGER), arg("timeout", INTEGER))
            .handler(replication::waitFor),
        command("waitaof")
            .arity(4)
            .flags("blocking")
            .categories("slow", "blocking", "connection")
            .tips("request_policy:all_shards", "response_policy:agg_min")
            .summary(
                "Blocks until all of the preceding write commands sent by the connection are"
                    + " written to the append-only file of the master and/or replicas.")
            .group("generic")
            .since("7.2.0")
            .complexity("O(1)")
            .arguments(
                arg("numlocal", INTEGER), arg("numreplicas", INTEGER), arg("timeout", INTEGER))
            .handler(replication::waitAof));
  }
}
