package dev.cuckoo.server.command;

import dev.cuckoo.server.keyspace.CommandClock;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.persist.RecordApplier;
import dev.cuckoo.server.persist.Replay;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Authentication;
import dev.cuckoo.server.protocol.Reply;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.Lock;

/**
 * The command table and dispatcher: finds a request's command, checks arity and authentication in
 * Redis's order (unknown command, then arity, then NOAUTH) and runs it.
 */
public final class Commands {
  private static final System.Logger LOGGER = System.getLogger(Commands.class.getName());
  private static final String GROUP_CF = "cf";
  private static final List<String> NONE = List.of();

  /** Redis's reply to a command that may grow memory once maxmemory is exceeded. */
  static final String OOM = "OOM command not allowed when used memory > 'maxmemory'.";

  /** Commands that run at once inside MULTI instead of being queued. */
  private static final java.util.Set<String> TRANSACTION_CONTROL =
      java.util.Set.of("exec", "discard", "multi", "watch", "quit", "reset");

  private final Map<String, CommandSpec> table = new LinkedHashMap<>();
  private final ExpiryCommands expiry;
  private final ServerContext context;
  private final WriteLog log;

  /** Builds the table over the shared server state and the write log. */
  public Commands(ServerContext context, WriteLog log) {
    this.context = context;
    this.log = log;
    CfCommands cf =
        new CfCommands(context.keyspace(), context.cfConfig(), log, context::memoryLimit);
    ConnectionCommands connection = new ConnectionCommands(context);
    DatabaseCommands database = new DatabaseCommands(context, log);
    PersistenceCommands persistence = new PersistenceCommands(context);
    ConfigCommands config = new ConfigCommands(context);
    InfoCommands info = new InfoCommands(context);
    List<String> write = List.of("write", "denyoom");
    List<String> writeFast = List.of("write", "fast");
    List<String> readFast = List.of("readonly", "fast");
    List<String> writeCats = List.of("write", "cuckoo", "slow");
    List<String> readCats = List.of("read", "cuckoo", "fast");
    cf("cf.reserve", -3, write, writeCats, "Creates a new Cuckoo Filter", cf::reserve);
    cf(
        "cf.add",
        3,
        write,
        writeCats,
        "Adds an item to a Cuckoo Filter",
        (s, a) -> cf.add(s, a, false));
    cf(
        "cf.addnx",
        3,
        write,
        writeCats,
        "Adds an item to a Cuckoo Filter if the item did not exist previously.",
        (s, a) -> cf.add(s, a, true));
    cf(
        "cf.insert",
        -4,
        write,
        writeCats,
        "Adds one or more items to a Cuckoo Filter. A filter will be created if it does not"
            + " exist",
        (s, a) -> cf.insert(s, a, false));
    cf(
        "cf.insertnx",
        -4,
        write,
        writeCats,
        "Adds one or more items to a Cuckoo Filter if the items did not exist previously. A"
            + " filter will be created if it does not exist",
        (s, a) -> cf.insert(s, a, true));
    cf(
        "cf.exists",
        3,
        readFast,
        readCats,
        "Checks whether one or more items exist in a Cuckoo Filter",
        cf::exists);
    cf(
        "cf.mexists",
        -3,
        readFast,
        readCats,
        "Checks whether one or more items exist in a Cuckoo Filter",
        cf::mexists);
    cf(
        "cf.count",
        3,
        readFast,
        readCats,
        "Return the number of times an item might be in a Cuckoo Filter",
        cf::count);
    cf(
        "cf.del",
        3,
        writeFast,
        List.of("write", "cuckoo", "fast"),
        "Deletes an item from a Cuckoo Filter",
        cf::del);
    cf("cf.info", 2, readFast, readCats, "Returns information about a Cuckoo Filter", cf::info);
    cf(
        "cf.scandump",
        3,
        readFast,
        readCats,
        "Begins an incremental save of the bloom filter",
        cf::scanDump);
    cf(
        "cf.loadchunk",
        4,
        write,
        writeCats,
        "Restores a filter previously saved using SCANDUMP",
        cf::loadChunk);
    // RedisBloom registers CF.COMPACT "readonly fast" and COMMAND INFO must match; it still
    // changes the filter, so CfCommands.compact takes the write path and logs it.
    cf("cf.compact", -1, readFast, readCats, "Compacts a Cuckoo Filter", cf::compact);
    cf("cf.debug", 2, readFast, readCats, "Describes a Cuckoo Filter's internals", cf::debug);

    List<String> connectionCats = List.of("fast", "connection");
    List<String> noAuth = List.of("noscript", "loading", "stale", "fast", "no_auth");
    add(
        spec(
            "ping",
            -1,
            List.of("fast"),
            0,
            0,
            0,
            connectionCats,
            "connection",
            "Returns the server's liveliness response.",
            connection::ping));
    add(
        spec(
            "echo",
            2,
            List.of("fast"),
            0,
            0,
            0,
            connectionCats,
            "connection",
            "Returns the given string.",
            connection::echo));
    add(
        spec(
            "hello",
            -1,
            noAuth,
            0,
            0,
            0,
            connectionCats,
            "connection",
            "Handshakes with the Redis server.",
            connection::hello));
    add(
        spec(
            "auth",
            -2,
            noAuth,
            0,
            0,
            0,
            connectionCats,
            "connection",
            "Authenticates the connection.",
            connection::auth));
    add(
        spec(
            "quit",
            -1,
            noAuth,
            0,
            0,
            0,
            connectionCats,
            "connection",
            "Closes the connection.",
            connection::quit));
    add(
        spec(
            "select",
            2,
            List.of("loading", "stale", "fast"),
            0,
            0,
            0,
            connectionCats,
            "connection",
            "Changes the selected database.",
            connection::select));
    ClientCommands clients = new ClientCommands(context);
    List<String> clientAdmin = List.of("admin", "noscript", "loading", "stale");
    List<String> clientAdminCats = List.of("admin", "slow", "dangerous", "connection");
    add(
        container(
            "client",
            "connection",
            "A container for client connection commands.",
            sub(
                "client|setinfo",
                4,
                connection::clientSetInfo,
                "Sets information specific to the client" + " or connection."),
            sub("client|setname", 3, connection::clientSetName, "Sets the connection name."),
            sub(
                "client|getname",
                2,
                connection::clientGetName,
                "Returns the name of the connection."),
            sub(
                "client|id",
                2,
                connection::clientId,
                "Returns the unique client ID of the connection."),
            spec(
                "client|info",
                2,
                List.of("noscript", "loading", "stale"),
                0,
                0,
                0,
                List.of("slow", "connection"),
                "connection",
                "Returns information about the connection.",
                clients::info),
            spec(
                "client|list",
                -2,
                clientAdmin,
                0,
                0,
                0,
                clientAdminCats,
                "connection",
                "Lists open connections.",
                clients::list),
            spec(
                "client|kill",
                -3,
                clientAdmin,
                0,
                0,
                0,
                clientAdminCats,
                "connection",
                "Terminates open connections.",
                clients::kill),
            sub("client|no-evict", 3, clients::flag, "Sets the client eviction mode."),
            sub(
                "client|no-touch",
                3,
                clients::flag,
                "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.")));
    add(
        spec(
            "reset",
            1,
            List.of("noscript", "loading", "stale", "fast", "no_auth", "allow_busy"),
            0,
            0,
            0,
            connectionCats,
            "connection",
            "Resets the connection.",
            clients::reset));
    List<String> keyRead = List.of("keyspace", "read", "fast");
    List<String> keyWrite = List.of("keyspace", "write", "slow");
    add(
        spec(
            "dbsize",
            1,
            readFast,
            0,
            0,
            0,
            keyRead,
            "server",
            "Returns the number of keys in the database.",
            database::dbsize));
    add(
        spec(
            "type",
            2,
            readFast,
            1,
            1,
            1,
            keyRead,
            "generic",
            "Determines the type of value stored at a key.",
            database::type));
    add(
        spec(
            "del",
            -2,
            List.of("write"),
            1,
            -1,
            1,
            keyWrite,
            "generic",
            "Deletes one or more keys.",
            database::del));
    add(
        spec(
            "exists",
            -2,
            readFast,
            1,
            -1,
            1,
            keyRead,
            "generic",
            "Determines whether one or more keys exist.",
            database::exists));
    add(
        spec(
            "keys",
            2,
            List.of("readonly"),
            0,
            0,
            0,
            List.of("keyspace", "read", "slow", "dangerous"),
            "generic",
            "Returns all key names that match a pattern.",
            database::keys));
    add(
        spec(
            "scan",
            -2,
            List.of("readonly"),
            0,
            0,
            0,
            List.of("keyspace", "read", "slow"),
            "generic",
            "Iterates over the key names in the database.",
            database::scan));
    List<String> dangerous = List.of("keyspace", "write", "slow", "dangerous");
    add(
        spec(
            "flushdb",
            -1,
            List.of("write"),
            0,
            0,
            0,
            dangerous,
            "server",
            "Removes all keys from the current database.",
            database::flush));
    add(
        spec(
            "flushall",
            -1,
            List.of("write"),
            0,
            0,
            0,
            dangerous,
            "server",
            "Removes all keys from all databases.",
            database::flush));
    List<String> admin = List.of("admin", "slow", "dangerous");
    // SAVE and SHUTDOWN wait for every key: inside EXEC, which holds them all, they could not
    add(
        spec(
            "save",
            1,
            List.of("admin", "noscript", "no_multi"),
            0,
            0,
            0,
            admin,
            "server",
            "Synchronously saves the database(s) to disk.",
            persistence::save));
    add(
        spec(
            "bgsave",
            -1,
            List.of("admin", "noscript"),
            0,
            0,
            0,
            admin,
            "server",
            "Asynchronously saves the database(s) to disk.",
            persistence::bgsave));
    add(
        spec(
            "lastsave",
            1,
            List.of("loading", "stale", "fast"),
            0,
            0,
            0,
            List.of("admin", "fast", "dangerous"),
            "server",
            "Returns the Unix timestamp of the last successful save to disk.",
            persistence::lastsave));
    add(
        spec(
            "shutdown",
            -1,
            List.of("admin", "noscript", "loading", "stale", "no_multi"),
            0,
            0,
            0,
            admin,
            "server",
            "Synchronously saves the database(s) to disk and shuts down the server.",
            persistence::shutdown));
    add(
        spec(
            "info",
            -1,
            List.of("loading", "stale"),
            0,
            0,
            0,
            List.of("slow", "dangerous"),
            "server",
            "Returns information and statistics about the server.",
            info::info));
    add(
        container(
            "config",
            "server",
            "A container for server configuration commands.",
            sub(
                "config|get",
                -3,
                config::configGet,
                "Returns the effective values of configuration parameters."),
            sub("config|set", -4, config::configSet, "Sets configuration parameters in-flight."),
            sub("config|resetstat", 2, config::configResetStat, "Resets the server's statistics."),
            sub(
                "config|rewrite",
                2,
                config::configRewrite,
                "Persists the effective configuration to file.")));
    expiry = new ExpiryCommands(context, log);
    registerKeyCommands(connection, database);
    KeyspaceCommands keys = new KeyspaceCommands(context.keyspace());
    add(
        spec(
            "randomkey",
            1,
            List.of("readonly"),
            0,
            0,
            0,
            List.of("keyspace", "read", "slow"),
            "generic",
            "Returns a random key name from the database.",
            keys::randomKey));
    add(
        spec(
            "touch",
            -2,
            readFast,
            1,
            -1,
            1,
            keyRead,
            "generic",
            "Returns the number of"
                + " existing keys out of those specified after updating the time they were last"
                + " accessed.",
            keys::touch));
    List<String> readSlow = List.of("keyspace", "read", "slow");
    add(
        container(
            "memory",
            "server",
            "A container for memory diagnostics commands.",
            spec(
                "memory|usage",
                -3,
                List.of("readonly"),
                2,
                2,
                1,
                List.of("read", "slow"),
                "server",
                "Estimates the memory usage of a key.",
                keys::memoryUsage)));
    add(
        container(
            "object",
            "generic",
            "A container for object introspection commands.",
            spec(
                "object|encoding",
                3,
                List.of("readonly"),
                2,
                2,
                1,
                readSlow,
                "generic",
                "Returns the internal encoding of a Redis object.",
                keys::objectEncoding),
            spec(
                "object|freq",
                3,
                List.of("readonly"),
                2,
                2,
                1,
                readSlow,
                "generic",
                "Returns the logarithmic access frequency counter of a Redis object.",
                keys::objectFreq),
            spec(
                "object|refcount",
                3,
                List.of("readonly"),
                2,
                2,
                1,
                readSlow,
                "generic",
                "Returns the reference count of a value of a key.",
                keys::objectRefcount),
            spec(
                "object|idletime",
                3,
                List.of("readonly"),
                2,
                2,
                1,
                readSlow,
                "generic",
                "Returns the time since the last access to a Redis object.",
                keys::objectIdleTime)));
    add(
        spec(
            "role",
            1,
            List.of("noscript", "loading", "stale", "fast"),
            0,
            0,
            0,
            List.of("admin", "fast", "dangerous"),
            "server",
            "Returns the replication role.",
            info::role));
    add(
        spec(
            "time",
            1,
            List.of("loading", "stale", "fast"),
            0,
            0,
            0,
            List.of("fast"),
            "server",
            "Returns the server time.",
            info::time));
    CommandInfo commandInfo = new CommandInfo(this);
    table.put(
        "command",
        container(
            "command",
            "server",
            "Returns detailed information about all commands.",
            commandInfo::all,
            sub("command|count", 2, commandInfo::count, "Returns a count of commands."),
            sub(
                "command|docs",
                -2,
                commandInfo::docs,
                "Returns documentary information about one, multiple or all commands."),
            sub(
                "command|info",
                -2,
                commandInfo::info,
                "Returns information about one, multiple or all commands."),
            sub("command|list", -2, commandInfo::list, "Returns a list of command names."),
            spec(
                "command|getkeys",
                -3,
                List.of("loading", "stale"),
                0,
                0,
                0,
                List.of("slow", "connection"),
                "server",
                "Extracts the key names from an arbitrary command.",
                commandInfo::getKeys),
            spec(
                "command|getkeysandflags",
                -3,
                List.of("loading", "stale"),
                0,
                0,
                0,
                List.of("slow", "connection"),
                "server",
                "Extracts the key names and access flags for an arbitrary command.",
                commandInfo::getKeysAndFlags)));
  }

  /** Registers transactions, expiry, data movers and UNLINK (Redis 8's flags and key positions). */
  private void registerKeyCommands(ConnectionCommands connection, DatabaseCommands database) {
    TransactionCommands tx = new TransactionCommands(this, context, log);
    List<String> control = List.of("noscript", "loading", "stale", "fast", "allow_busy");
    List<String> txCats = List.of("fast", "transaction");
    add(
        spec(
            "multi",
            1,
            control,
            0,
            0,
            0,
            txCats,
            "transactions",
            "Starts a transaction.",
            tx::multi));
    add(
        spec(
            "exec",
            1,
            List.of("noscript", "loading", "stale", "skip_slowlog"),
            0,
            0,
            0,
            List.of("slow", "transaction"),
            "transactions",
            "Executes all commands in a transaction.",
            tx::exec));
    add(
        spec(
            "discard",
            1,
            control,
            0,
            0,
            0,
            txCats,
            "transactions",
            "Discards a transaction.",
            tx::discard));
    add(
        spec(
            "watch",
            -2,
            control,
            1,
            -1,
            1,
            txCats,
            "transactions",
            "Monitors changes to keys" + " to determine the execution of a transaction.",
            tx::watch));
    add(
        spec(
            "unwatch",
            1,
            control,
            0,
            0,
            0,
            txCats,
            "transactions",
            "Forgets about watched keys of a transaction.",
            tx::unwatch));
    List<String> writeFast = List.of("write", "fast");
    List<String> keyWriteFast = List.of("keyspace", "write", "fast");
    List<String> readFast = List.of("readonly", "fast");
    List<String> keyReadFast = List.of("keyspace", "read", "fast");
    add(
        spec(
            "expire",
            -3,
            writeFast,
            1,
            1,
            1,
            keyWriteFast,
            "generic",
            "Sets the expiration time of a key in seconds.",
            expiry::expire));
    add(
        spec(
            "pexpire",
            -3,
            writeFast,
            1,
            1,
            1,
            keyWriteFast,
            "generic",
            "Sets the expiration time of a key in milliseconds.",
            expiry::pexpire));
    add(
        spec(
            "expireat",
            -3,
            writeFast,
            1,
            1,
            1,
            keyWriteFast,
            "generic",
            "Sets the expiration time of a key to a Unix timestamp.",
            expiry::expireAt));
    add(
        spec(
            "pexpireat",
            -3,
            writeFast,
            1,
            1,
            1,
            keyWriteFast,
            "generic",
            "Sets the expiration time of a key to a Unix milliseconds timestamp.",
            expiry::pexpireAt));
    add(
        spec(
            "persist",
            2,
            writeFast,
            1,
            1,
            1,
            keyWriteFast,
            "generic",
            "Removes the expiration time of a key.",
            expiry::persist));
    add(
        spec(
            "ttl",
            2,
            readFast,
            1,
            1,
            1,
            keyReadFast,
            "generic",
            "Returns the expiration time in seconds of a key.",
            expiry::ttl));
    add(
        spec(
            "pttl",
            2,
            readFast,
            1,
            1,
            1,
            keyReadFast,
            "generic",
            "Returns the expiration time in milliseconds of a key.",
            expiry::pttl));
    add(
        spec(
            "expiretime",
            2,
            readFast,
            1,
            1,
            1,
            keyReadFast,
            "generic",
            "Returns the expiration time of a key as a Unix timestamp.",
            expiry::expireTime));
    add(
        spec(
            "pexpiretime",
            2,
            readFast,
            1,
            1,
            1,
            keyReadFast,
            "generic",
            "Returns the expiration time of a key as a Unix milliseconds timestamp.",
            expiry::pexpireTime));
    MoveCommands moves = new MoveCommands(context, log, connection);
    add(
        spec(
            "rename",
            3,
            List.of("write"),
            1,
            2,
            1,
            List.of("keyspace", "write", "slow"),
            "generic",
            "Renames a key and overwrites the destination.",
            moves::rename));
    add(
        spec(
            "renamenx",
            3,
            writeFast,
            1,
            2,
            1,
            keyWriteFast,
            "generic",
            "Renames a key only when the target key name doesn't exist.",
            moves::renameNx));
    add(
        spec(
            "move",
            3,
            writeFast,
            1,
            1,
            1,
            keyWriteFast,
            "generic",
            "Moves a key to another database.",
            moves::move));
    add(
        spec(
            "swapdb",
            3,
            writeFast,
            0,
            0,
            0,
            List.of("keyspace", "write", "fast", "dangerous"),
            "server",
            "Swaps two Redis databases.",
            moves::swapDb));
    add(
        spec(
            "copy",
            -3,
            List.of("write", "denyoom"),
            1,
            2,
            1,
            List.of("keyspace", "write", "slow"),
            "generic",
            "Copies the value of a key to a new key.",
            moves::copy));
    add(
        spec(
            "unlink",
            -2,
            writeFast,
            1,
            -1,
            1,
            keyWriteFast,
            "generic",
            "Asynchronously deletes one or more keys.",
            database::del));
  }

  /**
   * Returns what replays logged records through this table: a session of its own that neither logs
   * nor applies limits, whose error reply (if any) is handed back.
   */
  public RecordApplier replayer() {
    Session session =
        new Session(0, new Reply(UnpooledByteBufAllocator.DEFAULT), new Authentication(true), true);
    return (db, args) -> {
      session.db(db);
      execute(session, args);
      ByteBuf out = session.reply().take();
      if (out == null) {
        return null;
      }
      try {
        return out.isReadable() && out.getByte(out.readerIndex()) == '-'
            ? out.toString(StandardCharsets.UTF_8).trim().substring(1)
            : null;
      } finally {
        out.release();
      }
    };
  }

  /** Runs the active expiry cycle once (every 100 ms on a network thread). */
  public void expireCycle() {
    context.keyspace().tick();
    expiry.expireCycle(25);
  }

  private void cf(
      String name,
      int arity,
      List<String> flags,
      List<String> categories,
      String summary,
      CommandSpec.Action action) {
    add(spec(name, arity, flags, 1, 1, 1, categories, GROUP_CF, summary, action));
  }

  private static CommandSpec spec(
      String name,
      int arity,
      List<String> flags,
      int first,
      int last,
      int step,
      List<String> categories,
      String group,
      String summary,
      CommandSpec.Action action) {
    return new CommandSpec(
        name, arity, flags, first, last, step, categories, group, summary, action, Map.of());
  }

  private static CommandSpec sub(
      String name, int arity, CommandSpec.Action action, String summary) {
    return spec(
        name,
        arity,
        List.of("loading", "stale"),
        0,
        0,
        0,
        List.of("slow"),
        "server",
        summary,
        action);
  }

  private CommandSpec container(String name, String group, String summary, CommandSpec... subs) {
    return container(name, group, summary, null, subs);
  }

  private CommandSpec container(
      String name, String group, String summary, CommandSpec.Action bare, CommandSpec... subs) {
    Map<String, CommandSpec> map = new LinkedHashMap<>();
    for (CommandSpec s : subs) {
      map.put(s.name().substring(s.name().indexOf('|') + 1), s);
    }
    return new CommandSpec(
        name,
        bare == null ? -2 : -1,
        List.of(),
        0,
        0,
        0,
        List.of("slow"),
        group,
        summary,
        bare,
        map);
  }

  private void add(CommandSpec spec) {
    table.put(spec.name(), spec);
  }

  /** Returns every top-level command. */
  Collection<CommandSpec> all() {
    return table.values();
  }

  /** Returns the command with this lower-case name, or null. */
  CommandSpec find(String name) {
    return table.get(name);
  }

  private static String unknownCommand(byte[][] args) {
    StringBuilder list = new StringBuilder();
    for (int i = 1; i < args.length && list.length() < 128; i++) {
      String arg = Args.text(args[i]);
      int room = 128 - list.length();
      list.append('\'').append(arg, 0, Math.min(arg.length(), room)).append("' ");
    }
    String name = Args.text(args[0]);
    return "ERR unknown command '"
        + name.substring(0, Math.min(name.length(), 128))
        + "', with args beginning with: "
        + list;
  }

  /**
   * Returns the command (or subcommand) a request names if it exists and its arity fits, else null.
   */
  CommandSpec resolve(byte[][] args) {
    CommandSpec spec = table.get(Args.lower(args[0]));
    if (spec == null || !spec.arityAccepts(args.length)) {
      return null;
    }
    if (!spec.subcommands().isEmpty() && (spec.action() == null || args.length > 1)) {
      CommandSpec sub = spec.subcommands().get(Args.lower(args[1]));
      return sub != null && sub.arityAccepts(args.length) ? sub : null;
    }
    return spec;
  }

  /**
   * Runs one request for the session, writing exactly one reply (or none for SHUTDOWN, or for a
   * command that asked to run again later). Inside MULTI, queues it instead (answering QUEUED); a
   * request refused while queueing makes EXEC abort, as in Redis.
   */
  public void execute(Session session, byte[][] args) {
    context.totalCommands().increment();
    // the command's time is fixed before it is looked up: CLIENT LIST's idle reads it too, so a
    // request reads the clock once
    CommandClock.enter();
    try {
      dispatch(session, args);
    } finally {
      CommandClock.exit();
    }
  }

  /**
   * Looks up, checks and runs one request. As in Redis's processCommand, every request counts in
   * CLIENT LIST's {@code tot-cmds} and sets its {@code cmd} to what the lookup found, refused ones
   * included: the command for an arity error or NOAUTH, nothing ({@code NULL}) for an unknown
   * command or subcommand.
   */
  private void dispatch(Session session, byte[][] args) {
    Reply reply = session.reply();
    CommandSpec spec = session.lastCommand(args[0]);
    String name = spec != null ? spec.name() : Args.lower(args[0]);
    if (spec == null) {
      spec = table.get(name);
      if (spec != null) {
        session.lastCommand(args[0], spec);
      }
    }
    long now = CommandClock.now();
    if (spec == null) {
      session.executing(null, now);
      reply.error(unknownCommand(args));
      session.failQueue();
      return;
    }
    if (!spec.arityAccepts(args.length)) {
      session.executing(spec, now);
      reply.error(CfCommands.arityError(spec.name()));
      session.failQueue();
      return;
    }
    if (!spec.subcommands().isEmpty() && (spec.action() == null || args.length > 1)) {
      String subName = Args.lower(args[1]);
      CommandSpec sub = spec.subcommands().get(subName);
      session.executing(sub, now);
      if (sub == null) {
        reply.error(
            "ERR unknown subcommand '"
                + Args.text(args[1])
                + "'. Try "
                + spec.name().toUpperCase(Locale.ROOT)
                + " HELP.");
        session.failQueue();
        return;
      }
      if (!sub.arityAccepts(args.length)) {
        reply.error(CfCommands.arityError(sub.name()));
        session.failQueue();
        return;
      }
      spec = sub;
    } else {
      session.executing(spec, now);
    }
    if (!session.authenticated() && !spec.noAuth()) {
      reply.error("NOAUTH Authentication required.");
      session.failQueue();
      return;
    }
    boolean write = spec.write();
    if (session.inMulti() && !TRANSACTION_CONTROL.contains(spec.name())) {
      queue(session, spec, write, args);
      return;
    }
    if (!session.replaying() && write) {
      // Redis's order: a disk error refuses writes before maxmemory is looked at
      if (log.refuses(session)) {
        return;
      }
      if (spec.denyOom() && context.keyspace().usedBytes() > context.memoryLimit()) {
        reply.error(OOM);
        return;
      }
    }
    try {
      if (write && !session.replaying() && context.keyspace().hasExpiries()) {
        runDeletingExpired(session, spec, args);
      } else {
        spec.action().run(session, args);
      }
    } catch (RuntimeException e) {
      LOGGER.log(Level.ERROR, "command " + name + " failed", e);
      reply.error("ERR internal error: " + e);
    } catch (OutOfMemoryError e) {
      reply.error("ERR Insufficient memory");
    }
  }

  /** Queues a command of a transaction, or refuses it (and dooms the transaction) as Redis does. */
  private void queue(Session session, CommandSpec spec, boolean write, byte[][] args) {
    Reply reply = session.reply();
    if (spec.noMulti()) {
      reply.error("ERR Command not allowed inside a transaction");
      session.failQueue();
      return;
    }
    if (write && log.refuses(session)) {
      session.failQueue();
      return;
    }
    if (spec.denyOom() && context.keyspace().usedBytes() > context.memoryLimit()) {
      reply.error(OOM);
      session.failQueue();
      return;
    }
    session.queue(args);
    reply.simple("QUEUED");
  }

  /**
   * Runs a write with the stripes of its keys held and its expired keys deleted first (each
   * deletion logged as DEL before the write's own record), so the write meets the keys a replay of
   * the log will meet.
   */
  private void runDeletingExpired(Session session, CommandSpec spec, byte[][] args) {
    List<Key> keys = new ArrayList<>(2);
    // flushes and swaps (whole databases) take every stripe themselves: nothing to delete first
    Replay.keysOf(session.db(), args, keys::add);
    Lock[] locks = context.keyspace().lockKeys(keys.toArray(new Key[0]));
    try {
      for (Key key : keys) {
        expiry.deleteIfExpired(key);
      }
      spec.action().run(session, args);
    } finally {
      Keyspace.unlock(locks);
    }
  }

  /** Returns every command and subcommand name (COMMAND LIST). */
  List<String> names() {
    List<String> names = new ArrayList<>();
    for (CommandSpec spec : table.values()) {
      names.add(spec.name());
      for (CommandSpec sub : spec.subcommands().values()) {
        names.add(sub.name());
      }
    }
    return names;
  }
}
