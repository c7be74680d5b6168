package dev.cuckoo.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.cuckoo.server.TestServers;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.protocol.Authentication;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.session.Session;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How a line is resolved into a {@link Request}: its entry, its database and its keys, through the
 * dispatcher's own lookup ({@link Commands#lookUp}, the step {@code execute} takes before it runs a
 * request).
 */
class RequestTest {
  private final Keyspace keyspace = new Keyspace();
  private final Commands commands =
      new Commands(new ServerContext(TestServers.memoryOnly().build().parameters(), keyspace));

  private static byte[][] line(String... args) {
    byte[][] argv = new byte[args.length][];
    for (int i = 0; i < args.length; i++) {
      argv[i] = args[i].getBytes(StandardCharsets.UTF_8);
    }
    return argv;
  }

  private static Key key(int db, String name) {
    return new Key(db, name.getBytes(StandardCharsets.UTF_8));
  }

  /** Returns the request's keys as "db:name", in order. */
  private static List<String> keys(Request request) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < request.keyCount(); i++) {
      Key key = request.key(i);
      keys.add(key.db() + ":" + new String(key.bytes(), StandardCharsets.UTF_8));
    }
    return keys;
  }

  private static Session session() {
    return new Session(
        1, new Reply(UnpooledByteBufAllocator.DEFAULT), new Authentication(true), false);
  }

  /** Looks the line up as the dispatcher does, in database {@code db}; null: refused. */
  private Request lookUp(Session session, int db, String... args) {
    session.db(db);
    return commands.lookUp(session, line(args));
  }

  private Request resolve(int db, String... args) {
    Request request = lookUp(session(), db, args);
    assertNotNull(request, String.join(" ", args));
    return request;
  }

  @Test
  void request_multiKeyDel_everyKeyInItsDatabase() {
    Request request = resolve(3, "DEL", "a", "b", "c");
    assertEquals("del", request.spec().name());
    assertEquals(3, request.db());
    assertEquals(4, request.argCount());
    assertEquals(List.of("3:a", "3:b", "3:c"), keys(request));
  }

  @Test
  void request_keySpecWithStep_keysEveryOtherArgument() {
    // an MSET-like entry: keys from 1 to the end, every second argument
    CommandSpec mset =
        CommandSpec.command("mset")
            .arity(-3)
            .flags("write", "denyoom")
            .keys(KeySpec.range(1, -1, 2, "OW", "update"))
            .writes(Writes.KEYS)
            .build();
    Request request = new Request(mset, 0, line("MSET", "k1", "v1", "k2", "v2", "k3", "v3"));
    assertEquals(List.of("0:k1", "0:k2", "0:k3"), keys(request));
  }

  @Test
  void request_rename_sourceThenDestination() {
    assertEquals(List.of("1:src", "1:dst"), keys(resolve(1, "RENAME", "src", "dst")));
  }

  @Test
  void request_move_theKeyInBothDatabases() {
    assertEquals(List.of("2:k", "5:k"), keys(resolve(2, "MOVE", "k", "5")));
  }

  @Test
  void request_copyWithDbOption_destinationInThatDatabase() {
    assertEquals(List.of("0:a", "7:b"), keys(resolve(0, "COPY", "a", "b", "DB", "7")));
    assertEquals(List.of("4:a", "9:b"), keys(resolve(4, "copy", "a", "b", "REPLACE", "db", "9")));
    assertEquals(List.of("4:a", "4:b"), keys(resolve(4, "COPY", "a", "b", "REPLACE")));
    // not a database index: the handler refuses it; the destination stays in the current one
    assertEquals(List.of("4:a", "4:b"), keys(resolve(4, "COPY", "a", "b", "DB", "x")));
  }

  @Test
  void request_wholeDatabaseWrites_noKeys() {
    assertEquals(0, resolve(0, "FLUSHDB").keyCount());
    assertEquals(0, resolve(0, "FLUSHALL").keyCount());
    assertEquals(0, resolve(0, "SWAPDB", "0", "1").keyCount());
  }

  @Test
  void request_cfAddAndReads_theKeyArgumentOnly() {
    assertEquals(List.of("6:f"), keys(resolve(6, "CF.ADD", "f", "item")));
    assertEquals(List.of("6:f"), keys(resolve(6, "CF.MEXISTS", "f", "a", "b")));
    assertEquals(List.of("0:f"), keys(resolve(0, "CF.INSERT", "f", "CAPACITY", "5", "ITEMS", "x")));
    assertEquals(0, resolve(0, "PING", "hello").keyCount());
  }

  @Test
  void request_keys_foundOnceAndKept() {
    Request request = resolve(0, "DEL", "a", "b");
    assertSame(request.keys(), request.keys());
  }

  @Test
  void request_subcommands_resolvedToTheSubcommandOrNull() {
    assertEquals("config|get", resolve(0, "CONFIG", "GET", "maxmemory").spec().name());
    assertEquals(List.of("0:k"), keys(resolve(0, "MEMORY", "USAGE", "k", "SAMPLES", "5")));
    Session session = session();
    assertNull(lookUp(session, 0, "CONFIG", "NOPE"));
    assertEquals("-ERR unknown subcommand 'NOPE'. Try CONFIG HELP.\r\n", take(session), "answered");
    assertNull(lookUp(session, 0, "NOSUCHCOMMAND", "k"));
    assertEquals(
        "-ERR unknown command 'NOSUCHCOMMAND', with args beginning with: 'k' \r\n", take(session));
    assertNull(lookUp(session, 0, "CF.ADD", "k"), "arity");
    assertEquals("-ERR wrong number of arguments for 'cf.add' command\r\n", take(session));
  }

  @Test
  void inDatabase_otherDatabase_keysFollow() {
    Request request = resolve(0, "RENAME", "a", "b");
    assertSame(request, request.inDatabase(0));
    Request moved = request.inDatabase(3);
    assertEquals(3, moved.db());
    assertSame(request.args(), moved.args());
    assertEquals(List.of("3:a", "3:b"), keys(moved));
  }

  private static String run(Commands commands, Session session, String... args) {
    commands.execute(session, line(args));
    return take(session);
  }

  /** Returns the replies written to the session since the last look, as text. */
  private static String take(Session session) {
    ByteBuf out = session.reply().take();
    try {
      return out == null ? "" : out.toString(StandardCharsets.UTF_8);
    } finally {
      if (out != null) {
        out.release();
      }
    }
  }

  @Test
  void exec_selectQueuedBeforeAWrite_writeRunsInTheSelectedDatabase() {
    Session session = session();
    run(commands, session, "SELECT", "3");
    run(commands, session, "CF.ADD", "gone", "x");
    run(commands, session, "SELECT", "1");
    run(commands, session, "CF.ADD", "gone", "x");
    run(commands, session, "MULTI");
    assertEquals("+QUEUED\r\n", run(commands, session, "CF.ADD", "first", "a"));
    assertEquals("+QUEUED\r\n", run(commands, session, "SELECT", "3"));
    assertEquals("+QUEUED\r\n", run(commands, session, "CF.ADD", "second", "b"));
    assertEquals("+QUEUED\r\n", run(commands, session, "DEL", "gone"));
    assertEquals("*4\r\n:1\r\n+OK\r\n:1\r\n:1\r\n", run(commands, session, "EXEC"));
    assertNotNull(keyspace.get(key(1, "first")), "queued before SELECT: the database of MULTI");
    assertNull(keyspace.get(key(3, "first")));
    assertNotNull(keyspace.get(key(3, "second")), "queued after SELECT 3");
    assertNull(keyspace.get(key(1, "second")));
    assertNull(keyspace.get(key(3, "gone")), "DEL after SELECT 3");
    assertNotNull(keyspace.get(key(1, "gone")));
    assertEquals(3, session.db());
  }
}
