package dev.cuckoo.server.command;

import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.session.Session;
import java.nio.charset.StandardCharsets;

/**
 * Connection commands: PING, ECHO, AUTH, HELLO, QUIT, SELECT and CLIENT SETNAME/GETNAME/SETINFO/ID.
 */
public final class ConnectionCommands {
  private final ServerContext context;
  private final Keyspace keyspace;
  private final Commands commands;

  /**
   * Creates the commands over the server's shared state; {@code commands} logs failed AUTHs in the
   * ACL log.
   */
  ConnectionCommands(ServerContext context, Commands commands) {
    this.context = context;
    this.keyspace = context.keyspace();
    this.commands = commands;
  }

  /** PING [message]. */
  void ping(Session session, Request request) {
    byte[][] args = request.args();
    if (args.length > 2) {
      session.reply().error(CfFamily.arityError("ping"));
    } else if (session.subscriber().subscribed() && session.reply().protocol() == 2) {
      // a RESP2 subscriber can only read arrays: Redis answers pong and the argument (or "")
      session.reply().array(2);
      session.reply().bulk("pong");
      session.reply().bulk(args.length == 2 ? args[1] : new byte[0]);
    } else if (args.length == 2) {
      session.reply().bulk(args[1]);
    } else {
      session.reply().simple("PONG");
    }
  }

  /** ECHO message. */
  /**
   * READONLY and READWRITE, as a Redis without cluster mode answers them: a replica serves reads to
   * every client already (Sentinel and master-replica clients route reads there without them).
   */
  /** READONLY: a replica serves this connection's reads of its master's slots. */
  void readOnly(Session session, Request request) {
    setClusterFlag(session, () -> session.readOnly(true));
  }

  /** READWRITE: back to redirecting every request to the slot's master. */
  void readWrite(Session session, Request request) {
    setClusterFlag(session, () -> session.readOnly(false));
  }

  /** ASKING: the next command (or transaction) may use a slot this node imports. */
  void asking(Session session, Request request) {
    setClusterFlag(session, () -> session.asking(true));
  }

  /** Sets a connection flag and answers OK, or answers that cluster support is disabled. */
  private void setClusterFlag(Session session, Runnable set) {
    if (!clusterMode()) {
      session.reply().error("ERR This instance has cluster support disabled");
      return;
    }
    set.run();
    session.reply().ok();
  }

  void echo(Session session, Request request) {

    byte[][] args = request.args();
    session.reply().bulk(args[1]);
  }

  /** Redis's reply to a wrong user or password, or a user that is off. */
  static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";

  /**
   * Authenticates the session as {@code user} with {@code password} (Redis's ACLAuthenticateUser):
   * returns true, or logs the failure in the ACL log (reason auth, the command's name as typed as
   * object) and returns false. The password is hashed and compared in constant time; nothing
   * sleeps, so failed attempts cost other clients nothing.
   */
  private boolean authenticate(Session session, byte[] command, byte[] user, byte[] password) {
    String name = dev.cuckoo.server.acl.Latin1.text(user);
    dev.cuckoo.server.acl.User authenticated = context.acl().authenticate(name, password);
    if (authenticated == null) {
      commands
          .access()
          .logDenial(
              session,
              dev.cuckoo.server.acl.Denial.Reason.AUTH,
              session.inMulti() ? "multi" : "toplevel",
              Args.text(command),
              name);
      return false;
    }
    session.authenticate(authenticated);
    return true;
  }

  /** AUTH [username] password. */
  void auth(Session session, Request request) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    if (args.length > 3) {
      reply.error(Args.SYNTAX_ERROR);
      return;
    }
    if (args.length == 2 && context.acl().defaultUser().noPass()) {
      reply.error(
          "ERR AUTH <password> called without any password configured for the default"
              + " user. Are you sure your configuration is correct?");
      return;
    }
    byte[] user = args.length == 3 ? args[1] : "default".getBytes(StandardCharsets.US_ASCII);
    if (authenticate(session, args[0], user, args[args.length - 1])) {
      reply.ok();
    } else {
      reply.error(WRONGPASS);
    }
  }

  /** HELLO [protover [AUTH username password] [SETNAME clientname]]. */
  void hello(Session session, Request request) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    long version = 0;
    if (args.length >= 2) {
      Long parsed = Numbers.parseLong(args[1]);
      if (parsed == null) {
        reply.error("ERR Protocol version is not an integer or out of range");
        return;
      }
      if (parsed < 2 || parsed > 3) {
        reply.error("NOPROTO unsupported protocol version");
        return;
      }
      version = parsed;
    }
    byte[] user = null;
    byte[] password = null;
    String clientName = null;
    for (int j = 2; j < args.length; j++) {
      int more = args.length - 1 - j;
      String option = Args.lower(args[j]);
      if (option.equals("auth") && more >= 2) {
        user = args[j + 1];
        password = args[j + 2];
        j += 2;
      } else if (option.equals("setname") && more >= 1) {
        clientName = Args.text(args[j + 1]);
        j++;
      } else {
        reply.error("ERR Syntax error in HELLO option '" + Args.text(args[j]) + "'");
        return;
      }
    }
    if (user != null && !authenticate(session, args[0], user, password)) {
      reply.error(WRONGPASS);
      return;
    }
    if (!session.authenticated()) {
      reply.error(
          "NOAUTH HELLO must be called with the client already authenticated, otherwise"
              + " the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client"
              + " and select the RESP protocol version at the same time");
      return;
    }
    if (clientName != null && !setName(session, clientName)) {
      return;
    }
    if (version != 0) {
      reply.protocol((int) version);
    }
    reply.map(7);
    reply.bulk("server");
    reply.bulk("redis");
    reply.bulk("version");
    reply.bulk(ServerVersion.REDIS_VERSION);
    reply.bulk("proto");
    reply.integer(reply.protocol());
    reply.bulk("id");
    reply.integer(session.id());
    reply.bulk("mode");
    reply.bulk("standalone");
    reply.bulk("role");
    reply.bulk(
        context.replication() != null && context.replication().isReplica() ? "replica" : "master");
    reply.bulk("modules");
    ModuleCommands.loaded(reply);
  }

  private static boolean validName(String name) {
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < '!' || c > '~') {
        return false;
      }
    }
    return true;
  }

  private boolean setName(Session session, String name) {
    if (!validName(name)) {
      session
          .reply()
          .error("ERR Client names cannot contain spaces, newlines or special characters.");
      return false;
    }
    session.name(name.isEmpty() ? null : name);
    return true;
  }

  /** CLIENT SETNAME name. */
  void clientSetName(Session session, Request request) {
    byte[][] args = request.args();
    if (setName(session, Args.text(args[2]))) {
      session.reply().ok();
    }
  }

  /** CLIENT GETNAME. */
  void clientGetName(Session session, Request request) {
    if (session.name() == null) {
      session.reply().nullValue();
    } else {
      session.reply().bulk(session.name());
    }
  }

  /** CLIENT SETINFO LIB-NAME|LIB-VER value. */
  void clientSetInfo(Session session, Request request) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    String attribute = Args.lower(args[2]);
    String value = Args.text(args[3]);
    if (!attribute.equals("lib-name") && !attribute.equals("lib-ver")) {
      reply.error("ERR Unrecognized option '" + Args.text(args[2]) + "'");
      return;
    }
    if (!validName(value)) {
      reply.error("ERR " + attribute + " cannot contain spaces, newlines or special characters.");
      return;
    }
    if (attribute.equals("lib-name")) {
      session.libName(value);
    } else {
      session.libVersion(value);
    }
    reply.ok();
  }

  /** CLIENT ID. */
  void clientId(Session session, Request request) {
    session.reply().integer(session.id());
  }

  /**
   * CLIENT GETREDIR: -1, Redis's answer for a connection without client-side caching tracking (this
   * server has no tracking, so no connection redirects its notifications).
   */
  void clientGetRedir(Session session, Request request) {
    session.reply().integer(-1);
  }

  /** SELECT index: one of the {@code --databases} databases (16 by default). */
  void select(Session session, Request request) {
    byte[][] args = request.args();
    Long wanted = Numbers.parseLong(args[1]);
    if (wanted != null && wanted != 0 && wanted == (int) (long) wanted && clusterMode()) {
      session.reply().error("ERR SELECT is not allowed in cluster mode");
      return;
    }
    int index = databaseIndex(session, args[1]);
    if (index >= 0) {
      session.db(index);
      session.reply().ok();
    }
  }

  /** Returns true in cluster mode, where only database 0 exists. */
  boolean clusterMode() {
    return context.cluster() != null;
  }

  /**
   * Returns the database index an argument names, or -1 after answering with Redis's error (not an
   * integer; outside a C int, as getIntFromObjectOrReply words it; not a database).
   */
  int databaseIndex(Session session, byte[] arg) {
    Long index = Numbers.parseLong(arg);
    if (index == null) {
      session.reply().error(Args.NOT_INTEGER);
      return -1;
    }
    if (index != (int) (long) index) {
      session
          .reply()
          .error(
              "ERR value is out of range, value must between "
                  + Integer.MIN_VALUE
                  + " and "
                  + Integer.MAX_VALUE);
      return -1;
    }
    if (index < 0 || index >= keyspace.databases()) {
      session.reply().error(Args.DB_OUT_OF_RANGE);
      return -1;
    }
    return (int) (long) index;
  }

  /** QUIT. */
  void quit(Session session, Request request) {
    session.reply().ok();
    session.requestClose();
  }
}
