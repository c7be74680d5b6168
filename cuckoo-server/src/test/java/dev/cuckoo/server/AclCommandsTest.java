package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * ACL users over TCP, with Redis 8's replies: SETUSER/GETUSER/LIST/USERS/WHOAMI/CAT/DRYRUN/GENPASS,
 * commands allowed or refused by command, category, subcommand, key pattern (read and write apart)
 * and channel, selectors, the ACL log, MULTI/EXEC, DELUSER closing connections, requirepass and the
 * default user.
 */
@ExtendWith(LeakCheck.class)
class AclCommandsTest {
  private static final Simple OK = new Simple("OK");
  private static final Err NOPERM_KEY = new Err("NOPERM No permissions to access a key");
  private static final Err NOPERM_CHANNEL = new Err("NOPERM No permissions to access a channel");
  private static CuckooServer server;
  private RespClient admin;

  @BeforeAll
  static void startServer() throws IOException {
    server = TestServers.start();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @BeforeEach
  void resetUsers() throws IOException {
    admin = new RespClient(server.port());
    for (Object name : (List<?>) admin.call("ACL", "USERS")) {
      if (!RespClient.text(name).equals("default")) {
        admin.call("ACL", "DELUSER", RespClient.text(name));
      }
    }
    admin.call("ACL", "LOG", "RESET");
    admin.call("FLUSHALL");
  }

  @org.junit.jupiter.api.AfterEach
  void closeAdmin() throws IOException {
    admin.close();
  }

  static String sha256(String password) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256")
                  .digest(password.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /** Returns each element as text: bulk strings decoded, integers and others as printed. */
  static List<String> texts(Object reply) {
    List<String> texts = new ArrayList<>();
    for (Object item : (java.util.Collection<?>) reply) {
      texts.add(
          item instanceof byte[] bytes
              ? new String(bytes, StandardCharsets.UTF_8)
              : item instanceof Simple simple ? simple.text() : String.valueOf(item));
    }
    return texts;
  }

  /** Returns INFO stats' acl_access_denied_{@code reason}. */
  private long denied(String reason) throws IOException {
    return Long.parseLong(admin.infoField("acl_access_denied_" + reason));
  }

  private RespClient as(String user, String password) throws IOException {
    RespClient client = new RespClient(server.port());
    assertEquals(OK, client.call("AUTH", user, password));
    return client;
  }

  @Test
  void setUser_listGetUserUsers_showRulesAsRedis() throws IOException {
    assertEquals(
        List.of("user default on nopass sanitize-payload ~* &* +@all"),
        texts(admin.call("ACL", "LIST")));
    assertEquals(OK, admin.call("ACL", "SETUSER", "alice", "on", ">p1", "~cf:*", "+@cuckoo"));
    assertEquals(OK, admin.call("ACL", "SETUSER", "bob"));
    assertEquals(
        List.of(
            "user alice on sanitize-payload #"
                + sha256("p1")
                + " ~cf:* resetchannels -@all +@cuckoo",
            "user bob off sanitize-payload resetchannels -@all",
            "user default on nopass sanitize-payload ~* &* +@all"),
        texts(admin.call("ACL", "LIST")));
    assertEquals(List.of("alice", "bob", "default"), texts(admin.call("ACL", "USERS")));
    assertEquals("default", RespClient.text(admin.call("ACL", "WHOAMI")));
    // rules keep their order; a later rule for the same command replaces the earlier one
    assertEquals(
        OK,
        admin.call(
            "ACL",
            "SETUSER",
            "carol",
            "+@all",
            "-@slow",
            "+cf.info",
            "-@write",
            "%R~r:*",
            "%W~w:*",
            "%RW~rw:*",
            "&news.*",
            "(~x:* +cf.exists)"));
    List<?> carol = (List<?>) admin.call("ACL", "GETUSER", "carol");
    assertEquals(12, carol.size());
    assertEquals("flags", RespClient.text(carol.get(0)));
    assertEquals(List.of("off", "sanitize-payload"), texts(carol.get(1)));
    assertEquals(List.of(), carol.get(3));
    assertEquals("+@all -@slow +cf.info -@write", RespClient.text(carol.get(5)));
    assertEquals("%R~r:* %W~w:* ~rw:*", RespClient.text(carol.get(7)));
    assertEquals("&news.*", RespClient.text(carol.get(9)));
    assertEquals("selectors", RespClient.text(carol.get(10)));
    List<?> selector = (List<?>) ((List<?>) carol.get(11)).get(0);
    assertEquals(
        List.of("commands", "-@all +cf.exists", "keys", "~x:*", "channels", ""), texts(selector));
    assertEquals(
        "user carol off sanitize-payload %R~r:* %W~w:* ~rw:* resetchannels &news.* +@all -@slow"
            + " +cf.info -@write (~x:* resetchannels -@all +cf.exists)",
        RespClient.text(((List<?>) admin.call("ACL", "LIST")).get(2)));
    assertEquals(null, admin.call("ACL", "GETUSER", "nobody"));
    // RESP3: a map whose flags are a set
    admin.call("HELLO", "3");
    Map<?, ?> alice = (Map<?, ?>) admin.call("ACL", "GETUSER", "alice");
    assertEquals(
        List.of("flags", "passwords", "commands", "keys", "channels", "selectors"),
        new ArrayList<>(alice.keySet()));
    assertInstanceOf(Set.class, alice.get("flags"));
    assertEquals(List.of(sha256("p1")), texts(alice.get("passwords")));
    assertEquals("-@all +@cuckoo", RespClient.text(alice.get("commands")));
  }

  @Test
  void setUser_badRules_redisErrorsAndNothingChanges() throws IOException {
    assertEquals(OK, admin.call("ACL", "SETUSER", "alice", "on", "nopass", "~*"));
    assertEquals(
        new Err("ERR Error in ACL SETUSER modifier 'bogus': Syntax error"),
        admin.call("ACL", "SETUSER", "alice", "off", "bogus"));
    assertEquals(
        new Err(
            "ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL"),
        admin.call("ACL", "SETUSER", "alice", "+nosuch"));
    assertEquals(
        new Err(
            "ERR Error in ACL SETUSER modifier '-@nosuch': Unknown command or category name in ACL"),
        admin.call("ACL", "SETUSER", "alice", "-@nosuch"));
    assertEquals(
        new Err(
            "ERR Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64"
                + " characters and contain only lowercase hexadecimal characters"),
        admin.call("ACL", "SETUSER", "alice", "#abc"));
    assertEquals(
        new Err(
            "ERR Error in ACL SETUSER modifier '<nope': The password you are trying to remove"
                + " from the user does not exist"),
        admin.call("ACL", "SETUSER", "alice", "<nope"));
    assertEquals(
        new Err(
            "ERR Error in ACL SETUSER modifier '~x': Adding a pattern after the * pattern (or the"
                + " 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to"
                + " start with an empty list of patterns"),
        admin.call("ACL", "SETUSER", "alice", "~x"));
    assertEquals(
        new Err(
            "ERR Error in ACL SETUSER modifier '+config|get|x': Allowing first-arg of a"
                + " subcommand is not supported"),
        admin.call("ACL", "SETUSER", "alice", "+config|get|x"));
    assertEquals(
        new Err("ERR Unmatched parenthesis in acl selector starting at '(~x'."),
        admin.call("ACL", "SETUSER", "alice", "(~x", "+get"));
    assertEquals(
        new Err("ERR Usernames can't contain spaces or null characters"),
        admin.call("ACL", "SETUSER", "a b"));
    // none of the refused rules applied: alice is still on
    assertEquals(
        "user alice on nopass sanitize-payload ~* resetchannels -@all",
        RespClient.text(((List<?>) admin.call("ACL", "LIST")).get(0)));
    assertEquals(
        new Err("ERR The 'default' user cannot be removed"),
        admin.call("ACL", "DELUSER", "alice", "default"));
    assertEquals(1L, admin.call("ACL", "DELUSER", "alice", "nobody"));
  }

  @Test
  void catGenpassDryrun_answerAsRedis() throws IOException {
    List<String> categories = texts(admin.call("ACL", "CAT"));
    assertEquals("keyspace", categories.get(0));
    assertEquals("scripting", categories.get(20));
    assertEquals(List.of("bloom", "cuckoo"), categories.subList(21, 23));
    List<String> write = texts(admin.call("ACL", "CAT", "write"));
    assertTrue(
        write.containsAll(
            List.of(
                "cf.reserve",
                "cf.add",
                "cf.addnx",
                "cf.insert",
                "cf.insertnx",
                "cf.del",
                "cf.loadchunk")),
        write.toString());
    List<String> read = texts(admin.call("ACL", "CAT", "READ"));
    assertTrue(
        read.containsAll(
            List.of(
                "cf.exists",
                "cf.mexists",
                "cf.count",
                "cf.info",
                "cf.scandump",
                "cf.compact",
                "cf.debug")),
        read.toString());
    assertTrue(!read.contains("cf.add") && !write.contains("cf.exists"));
    List<String> cuckoo = texts(admin.call("ACL", "CAT", "cuckoo"));
    assertEquals(14, cuckoo.size(), cuckoo.toString());
    assertTrue(
        texts(admin.call("ACL", "CAT", "fast")).containsAll(List.of("cf.reserve", "cf.info")));
    assertTrue(texts(admin.call("ACL", "CAT", "admin")).contains("config|set"));
    assertEquals(new Err("ERR Unknown category 'nope'"), admin.call("ACL", "CAT", "nope"));
    assertTrue(RespClient.text(admin.call("ACL", "GENPASS")).matches("[0-9a-f]{64}"));
    assertTrue(RespClient.text(admin.call("ACL", "GENPASS", "5")).matches("[0-9a-f]{2}"));
    assertEquals(
        new Err(
            "ERR ACL GENPASS argument must be the number of bits for the output password, a"
                + " positive number up to 4096"),
        admin.call("ACL", "GENPASS", "0"));

    admin.call("ACL", "SETUSER", "alice", "on", ">p", "~cf:*", "+@cuckoo", "+config|get");
    assertEquals(OK, admin.call("ACL", "DRYRUN", "alice", "CF.ADD", "cf:x", "y"));
    assertEquals(
        "User alice has no permissions to access the 'other:x' key",
        RespClient.text(admin.call("ACL", "DRYRUN", "alice", "CF.ADD", "other:x", "y")));
    assertEquals(
        "User alice has no permissions to run the 'flushall' command",
        RespClient.text(admin.call("ACL", "DRYRUN", "alice", "FLUSHALL")));
    assertEquals(OK, admin.call("ACL", "DRYRUN", "alice", "CONFIG", "GET", "port"));
    assertEquals(
        "User alice has no permissions to run the 'config|set' command",
        RespClient.text(admin.call("ACL", "DRYRUN", "alice", "CONFIG", "SET", "port", "1")));
    // several keys: each found key is checked with its own access; the first refused one is named
    admin.call("ACL", "SETUSER", "bob", "on", ">p", "+@all", "%R~r:*", "~cf:*");
    assertEquals(OK, admin.call("ACL", "DRYRUN", "bob", "EXISTS", "cf:a", "r:b", "cf:c"));
    assertEquals(
        "User bob has no permissions to access the 'x:d' key",
        RespClient.text(admin.call("ACL", "DRYRUN", "bob", "EXISTS", "cf:a", "r:b", "x:d")));
    assertEquals(
        "User bob has no permissions to access the 'r:b' key",
        RespClient.text(admin.call("ACL", "DRYRUN", "bob", "DEL", "cf:a", "r:b")));
    assertEquals(
        "User bob has no permissions to access the 'r:d' key",
        RespClient.text(admin.call("ACL", "DRYRUN", "bob", "RENAME", "cf:a", "r:d")));
    assertEquals(OK, admin.call("ACL", "DRYRUN", "bob", "CF.MEXISTS", "r:x", "i1", "i2"));
    assertEquals(
        new Err("ERR User 'nobody' not found"), admin.call("ACL", "DRYRUN", "nobody", "PING"));
    assertEquals(
        new Err("ERR Command 'nosuch' not found"), admin.call("ACL", "DRYRUN", "alice", "nosuch"));
    assertEquals(
        new Err("ERR wrong number of arguments for 'cf.add' command"),
        admin.call("ACL", "DRYRUN", "alice", "CF.ADD", "cf:x"));
  }

  @Test
  void commandsCategoriesAndSubcommands_allowedOrRefusedWithRedisTexts() throws IOException {
    admin.call(
        "ACL", "SETUSER", "alice", "on", ">p1", "~cf:*", "+@cuckoo", "+config|get", "+acl|whoami");
    admin.call("ACL", "SETUSER", "carol", "on", ">p3", "~*", "+@all", "-@write");
    try (RespClient alice = as("alice", "p1");
        RespClient carol = as("carol", "p3")) {
      assertEquals("alice", RespClient.text(alice.call("ACL", "WHOAMI")));
      assertEquals(1L, alice.call("CF.ADD", "cf:1", "a"));
      assertEquals(NOPERM_KEY, alice.call("CF.ADD", "other:1", "a"));
      assertEquals(
          new Err("NOPERM User alice has no permissions to run the 'flushall' command"),
          alice.call("FLUSHALL"));
      assertInstanceOf(List.class, alice.call("CONFIG", "GET", "port"));
      assertEquals(
          new Err("NOPERM User alice has no permissions to run the 'config|set' command"),
          alice.call("CONFIG", "SET", "maxmemory", "0"));
      // commands that run before AUTH run for every user
      assertEquals(OK, alice.call("AUTH", "alice", "p1"));
      assertEquals(1L, carol.call("CF.EXISTS", "cf:1", "a"));
      assertEquals(
          new Err("NOPERM User carol has no permissions to run the 'cf.add' command"),
          carol.call("CF.ADD", "cf:1", "b"));
      // CLIENT LIST names the user of each connection
      assertTrue(
          RespClient.text(admin.call("CLIENT", "LIST")).contains(" user=alice "),
          "CLIENT LIST shows user=alice");
      assertTrue(RespClient.text(carol.call("CLIENT", "INFO")).contains(" user=carol "));
    }
  }

  @Test
  void keyPatterns_readAndWriteApart_eachCommandNeedsItsAccess() throws IOException {
    admin.call("ACL", "SETUSER", "dave", "on", ">p", "+@all", "%R~r:*", "%W~w:*", "%RW~rw:*");
    admin.call("CF.ADD", "r:1", "a");
    admin.call("CF.ADD", "w:1", "a");
    try (RespClient dave = as("dave", "p")) {
      // CF.EXISTS reads (key spec RO); CF.ADD reads and writes (RW); DEL deletes (write only)
      assertEquals(1L, dave.call("CF.EXISTS", "r:1", "a"));
      assertEquals(NOPERM_KEY, dave.call("CF.EXISTS", "w:1", "a"));
      assertEquals(NOPERM_KEY, dave.call("CF.ADD", "r:1", "b"));
      assertEquals(NOPERM_KEY, dave.call("CF.ADD", "w:1", "b"));
      assertEquals(1L, dave.call("CF.ADD", "rw:1", "b"));
      assertEquals(NOPERM_KEY, dave.call("DEL", "r:1"));
      assertEquals(1L, dave.call("DEL", "w:1"));
      assertEquals(NOPERM_KEY, dave.call("EXISTS", "rw:1", "w:2"));
      assertEquals(2L, dave.call("EXISTS", "rw:1", "r:1"));
    }
  }

  @Test
  void channels_publishSubscribePatterns_checkedAsRedis() throws IOException {
    admin.call("ACL", "SETUSER", "eve", "on", ">p", "+@all", "~*", "&news.*");
    try (RespClient eve = as("eve", "p")) {
      assertEquals(0L, eve.call("PUBLISH", "news.1", "x"));
      assertEquals(NOPERM_CHANNEL, eve.call("PUBLISH", "other", "x"));
      assertEquals(NOPERM_CHANNEL, eve.call("SUBSCRIBE", "news.1", "other"));
      // a pattern subscription must equal an allowed pattern
      assertEquals(NOPERM_CHANNEL, eve.call("PSUBSCRIBE", "news.a*"));
      assertEquals(List.of("psubscribe", "news.*", "1"), texts(eve.call("PSUBSCRIBE", "news.*")));
    }
  }

  @Test
  void selectors_oneMustAllowCommandAndKeys_mostRelevantDenialReported() throws IOException {
    admin.call("ACL", "SETUSER", "frank", "on", ">p", "~a:*", "+cf.exists", "(~b:* +cf.add)");
    try (RespClient frank = as("frank", "p")) {
      assertEquals(0L, frank.call("CF.EXISTS", "a:1", "x"));
      assertEquals(1L, frank.call("CF.ADD", "b:1", "x"));
      // the root selector refuses the command, the other the key: the key is reported
      assertEquals(NOPERM_KEY, frank.call("CF.ADD", "a:1", "x"));
      assertEquals(NOPERM_KEY, frank.call("CF.EXISTS", "b:1", "x"));
      assertEquals(
          new Err("NOPERM User frank has no permissions to run the 'cf.del' command"),
          frank.call("CF.DEL", "b:1", "x"));
    }
    assertEquals(OK, admin.call("ACL", "SETUSER", "frank", "clearselectors"));
    assertEquals(
        "User frank has no permissions to run the 'cf.add' command",
        RespClient.text(admin.call("ACL", "DRYRUN", "frank", "CF.ADD", "b:1", "x")));
  }

  @Test
  void aclLog_repeatedDenialCountsInOneEntry_authFailuresLogged_maxLenBounds() throws Exception {
    admin.call("ACL", "SETUSER", "alice", "on", ">p1", "~cf:*", "+@cuckoo");
    long authBefore = denied("auth");
    long cmdBefore = denied("cmd");
    long keyBefore = denied("key");
    long channelBefore = denied("channel");
    try (RespClient alice = as("alice", "p1")) {
      for (int i = 0; i < 3; i++) {
        alice.call("FLUSHALL");
      }
      alice.call("CF.ADD", "other", "x");
      assertEquals(
          new Err("WRONGPASS invalid username-password pair or user is disabled."),
          alice.call("AUTH", "alice", "wrong"));
    }
    List<?> log = (List<?>) admin.call("ACL", "LOG");
    assertEquals(3, log.size(), log.toString());
    List<String> auth = texts(log.get(0));
    assertEquals(20, auth.size());
    assertEquals(
        List.of("count", "1", "reason", "auth", "context", "toplevel", "object", "AUTH"),
        auth.subList(0, 8));
    assertEquals(List.of("username", "alice", "age-seconds"), auth.subList(8, 11));
    assertTrue(auth.get(13).startsWith("id="), auth.get(13));
    assertEquals(
        List.of("entry-id", "timestamp-created", "timestamp-last-updated"),
        List.of(auth.get(14), auth.get(16), auth.get(18)));
    List<?> key = (List<?>) log.get(1);
    assertEquals(
        List.of("count", "1", "reason", "key", "context", "toplevel", "object", "other"),
        texts(key).subList(0, 8));
    List<?> command = (List<?>) log.get(2);
    assertEquals(
        List.of("count", "3", "reason", "command", "context", "toplevel", "object", "flushall"),
        texts(command).subList(0, 8));
    assertEquals(1, ((List<?>) admin.call("ACL", "LOG", "1")).size());
    // INFO stats counts every denial since the start: this test's are 1 auth, 3 cmd, 1 key
    assertEquals(
        List.of(authBefore + 1, cmdBefore + 3, keyBefore + 1, channelBefore),
        List.of(denied("auth"), denied("cmd"), denied("key"), denied("channel")));
    // acllog-max-len bounds the entries kept
    assertEquals(OK, admin.call("CONFIG", "SET", "acllog-max-len", "2"));
    assertEquals(2, ((List<?>) admin.call("ACL", "LOG")).size());
    try (RespClient alice = as("alice", "p1")) {
      alice.call("DEL", "x");
      alice.call("CF.ADD", "y", "z");
    }
    List<?> bounded = (List<?>) admin.call("ACL", "LOG", "100");
    assertEquals(2, bounded.size());
    assertEquals("y", RespClient.text(((List<?>) bounded.get(0)).get(7)));
    assertEquals(OK, admin.call("CONFIG", "SET", "acllog-max-len", "128"));
    assertEquals(OK, admin.call("ACL", "LOG", "RESET"));
    assertEquals(List.of(), admin.call("ACL", "LOG"));
  }

  @Test
  void multiExec_deniedWhenQueuedAborts_rulesChangedBeforeExecRefusesThatCommand()
      throws IOException {
    admin.call("ACL", "SETUSER", "alice", "on", ">p1", "~*", "+@all", "-flushall");
    try (RespClient alice = as("alice", "p1")) {
      assertEquals(OK, alice.call("MULTI"));
      assertEquals(new Simple("QUEUED"), alice.call("CF.ADD", "k", "a"));
      assertEquals(
          new Err("NOPERM User alice has no permissions to run the 'flushall' command"),
          alice.call("FLUSHALL"));
      assertEquals(
          new Err("EXECABORT Transaction discarded because of previous errors."),
          alice.call("EXEC"));
      assertEquals(0L, alice.call("EXISTS", "k"));
      assertEquals(OK, alice.call("MULTI"));
      assertEquals(new Simple("QUEUED"), alice.call("CF.ADD", "k", "a"));
      assertEquals(new Simple("QUEUED"), alice.call("CF.EXISTS", "k", "a"));
      assertEquals(OK, admin.call("ACL", "SETUSER", "alice", "-cf.add"));
      List<?> results = (List<?>) alice.call("EXEC");
      assertEquals(
          new Err(
              "NOPERM ACLs rules changed between the moment the transaction was accumulated and"
                  + " the EXEC call. This command is no longer allowed for the following reason:"
                  + " no permission to execute the command or subcommand"),
          results.get(0));
      assertEquals(0L, results.get(1));
    }
    List<?> entries = (List<?>) admin.call("ACL", "LOG");
    assertEquals("multi", RespClient.text(((List<?>) entries.get(0)).get(5)));
    assertEquals("cf.add", RespClient.text(((List<?>) entries.get(0)).get(7)));
    assertEquals("multi", RespClient.text(((List<?>) entries.get(1)).get(5)));
  }

  @Test
  void deluser_closesThatUsersConnections_othersStay() throws IOException {
    admin.call("ACL", "SETUSER", "alice", "on", ">p1", "+@all", "~*");
    try (RespClient alice = as("alice", "p1");
        RespClient other = as("alice", "p1");
        RespClient bystander = new RespClient(server.port())) {
      assertEquals(0L, admin.call("CLIENT", "KILL", "USER", "alice", "ID", "999999"));
      assertEquals(1L, admin.call("ACL", "DELUSER", "alice"));
      assertTrue(alice.closedByServer(), "alice's connection closed");
      assertTrue(other.closedByServer(), "alice's second connection closed");
      assertEquals(new Simple("PONG"), bystander.call("PING"));
      assertEquals(
          new Err("ERR No such user 'alice'"), admin.call("CLIENT", "KILL", "USER", "alice"));
    }
  }

  @Test
  void requirepass_isTheDefaultUsersPassword_defaultOffRequiresAuth() throws IOException {
    try {
      assertEquals(OK, admin.call("CONFIG", "SET", "requirepass", "secret"));
      assertEquals(
          "user default on sanitize-payload #" + sha256("secret") + " ~* &* +@all",
          RespClient.text(((List<?>) admin.call("ACL", "LIST")).get(0)));
      try (RespClient client = new RespClient(server.port())) {
        assertEquals(
            new Err("NOAUTH Authentication required."), client.call("CF.EXISTS", "k", "a"));
        assertEquals(
            new Err("WRONGPASS invalid username-password pair or user is disabled."),
            client.call("AUTH", "nope"));
        assertEquals(OK, client.call("AUTH", "default", "secret"));
        assertEquals(0L, client.call("CF.EXISTS", "k", "a"));
      }
      assertEquals(OK, admin.call("CONFIG", "SET", "requirepass", ""));
      assertEquals(
          "user default on nopass sanitize-payload ~* &* +@all",
          RespClient.text(((List<?>) admin.call("ACL", "LIST")).get(0)));
      admin.call("ACL", "SETUSER", "alice", "on", ">p1", "+@all", "~*");
      assertEquals(OK, admin.call("ACL", "SETUSER", "default", "off"));
      try (RespClient client = new RespClient(server.port())) {
        assertEquals(new Err("NOAUTH Authentication required."), client.call("PING"));
        assertEquals(
            new Err("WRONGPASS invalid username-password pair or user is disabled."),
            client.call("AUTH", "default", "x"));
        assertInstanceOf(Map.class, client.call("HELLO", "3", "AUTH", "alice", "p1"));
        assertEquals("alice", RespClient.text(client.call("ACL", "WHOAMI")));
        // RESET goes back to the default user, unauthenticated while it is off
        assertEquals(new Simple("RESET"), client.call("RESET"));
        assertEquals(new Err("NOAUTH Authentication required."), client.call("PING"));
      }
    } finally {
      admin.call("ACL", "SETUSER", "default", "on", "nopass");
      admin.call("CONFIG", "SET", "requirepass", "");
    }
  }

  @Test
  void failedAuths_manyInFlight_otherClientsAnswerPromptly() throws Exception {
    admin.call("ACL", "SETUSER", "alice", "on", ">right", "+@all", "~*");
    int attempts = 3_000;
    try (RespClient attacker = new RespClient(server.port());
        RespClient other = new RespClient(server.port())) {
      StringBuffer pipeline = new StringBuffer();
      byte[] one = RespClient.encode("AUTH", "alice", "wrong-password-guess");
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      for (int i = 0; i < attempts; i++) {
        bytes.write(one);
      }
      Thread reader =
          new Thread(
              () -> {
                try {
                  for (int i = 0; i < attempts; i++) {
                    attacker.read();
                  }
                } catch (IOException e) {
                  pipeline.append(e);
                }
              });
      reader.start();
      attacker.sendRaw(bytes.toByteArray());
      long worstNanos = 0;
      for (int i = 0; i < 50; i++) {
        long start = System.nanoTime();
        assertEquals(new Simple("PONG"), other.call("PING"));
        worstNanos = Math.max(worstNanos, System.nanoTime() - start);
      }
      reader.join(Duration.ofSeconds(60).toMillis());
      assertEquals("", pipeline.toString());
      // no sleep on the event loop: a PING never waits behind the failed attempts' penalty
      assertTrue(worstNanos < Duration.ofSeconds(2).toNanos(), "worst PING " + worstNanos + " ns");
    }
    List<?> log = (List<?>) admin.call("ACL", "LOG", "1");
    assertEquals(String.valueOf(attempts), texts(log.get(0)).get(1));
  }
}
