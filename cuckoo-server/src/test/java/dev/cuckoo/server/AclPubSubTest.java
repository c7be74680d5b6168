package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * ACL users and pub/sub as Redis 7 relates them: acl-pubsub-default for new users, selectors and
 * {@code reset}; subscribers closed when ACL SETUSER or ACL LOAD takes their channels away; and
 * {@code user} lines of the config file with quoted words.
 */
@ExtendWith(LeakCheck.class)
class AclPubSubTest {
  private static final Simple OK = new Simple("OK");

  @TempDir Path dir;

  private static List<String> texts(Object reply) {
    return AclCommandsTest.texts(reply);
  }

  /** Returns a field of ACL GETUSER's reply (RESP2: a flat list of names and values). */
  private static Object field(Object getUser, String name) {
    List<?> fields = (List<?>) getUser;
    for (int i = 0; i < fields.size(); i += 2) {
      if (RespClient.text(fields.get(i)).equals(name)) {
        return fields.get(i + 1);
      }
    }
    throw new AssertionError("no " + name + " in " + fields);
  }

  private static String channels(RespClient client, String user) throws IOException {
    return RespClient.text(field(client.call("ACL", "GETUSER", user), "channels"));
  }

  /** Connects as a user, names the connection and subscribes it (a RESP2 subscriber). */
  private static RespClient subscriber(int port, String user, String command, String channel)
      throws IOException {
    RespClient client = new RespClient(port);
    assertEquals(OK, client.call("AUTH", user, "p"));
    client.send(command, channel);
    assertEquals(3, ((List<?>) client.read()).size());
    return client;
  }

  @Test
  void aclPubsubDefault_newUsersSelectorsAndReset_existingUsersKeepTheirs() throws IOException {
    Path conf = dir.resolve("cuckoo.conf");
    try (CuckooServer server = TestServers.startFromConfigFile(conf);
        RespClient admin = new RespClient(server.port())) {
      assertEquals(
          List.of("acl-pubsub-default", "resetchannels"),
          texts(admin.call("CONFIG", "GET", "acl-pubsub-default")));
      assertEquals(OK, admin.call("ACL", "SETUSER", "before"));
      assertEquals("", channels(admin, "before"));
      assertEquals(OK, admin.call("CONFIG", "SET", "acl-pubsub-default", "allchannels"));
      assertEquals(OK, admin.call("ACL", "SETUSER", "after", "(~x +cf.exists)"));
      assertEquals("&*", channels(admin, "after"));
      Object selector =
          ((List<?>) field(admin.call("ACL", "GETUSER", "after"), "selectors")).get(0);
      assertEquals("&*", RespClient.text(field(selector, "channels")));
      assertEquals("", channels(admin, "before"));
      assertEquals(
          new Err(
              "ERR Error in ACL SETUSER modifier '&test': Adding a pattern after the * pattern (or"
                  + " the 'allchannels' flag) is not valid and does not have any effect. Try"
                  + " 'resetchannels' to start with an empty list of channels"),
          admin.call("ACL", "SETUSER", "after", "&test"));
      assertEquals(OK, admin.call("ACL", "SETUSER", "before", "reset"));
      assertEquals("&*", channels(admin, "before"));
      assertEquals(
          "user before off sanitize-payload &* -@all", texts(admin.call("ACL", "LIST")).get(1));
      Object refused = admin.call("CONFIG", "SET", "acl-pubsub-default", "somechannels");
      assertTrue(
          ((Err) refused)
              .text()
              .startsWith(
                  "ERR CONFIG SET failed (possibly related to argument 'acl-pubsub-default')"),
          refused.toString());
      assertEquals(OK, admin.call("CONFIG", "REWRITE"));
      assertEquals(OK, admin.call("CONFIG", "SET", "acl-pubsub-default", "RESETCHANNELS"));
      assertEquals(OK, admin.call("ACL", "SETUSER", "before", "reset"));
      assertEquals("", channels(admin, "before"));
    }
    assertTrue(
        Files.readAllLines(conf, StandardCharsets.UTF_8)
            .contains("acl-pubsub-default allchannels"));
    try (CuckooServer server = CuckooServer.start(ServerConfig.parse(conf.toString()));
        RespClient admin = new RespClient(server.port())) {
      assertEquals(OK, admin.call("ACL", "SETUSER", "later"));
      assertEquals("&*", channels(admin, "later"));
    }
  }

  @Test
  void setUser_channelsTakenAway_theUsersSubscribersClosedOthersKept() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port())) {
      int port = server.port();
      assertEquals(
          OK,
          admin.call(
              "ACL", "SETUSER", "ps", "on", ">p", "+@all", "~*", "&foo:1", "&bar:*", "&orders"));
      assertEquals(OK, admin.call("ACL", "SETUSER", "other", "on", ">p", "+@all", "~*", "&*"));
      try (RespClient channel = subscriber(port, "ps", "SUBSCRIBE", "foo:1");
          RespClient pattern = subscriber(port, "ps", "PSUBSCRIBE", "bar:*");
          RespClient shard = subscriber(port, "ps", "SSUBSCRIBE", "orders");
          RespClient bystander = subscriber(port, "other", "PSUBSCRIBE", "bar:*")) {
        // a superset, then every channel: nobody is closed
        assertEquals(
            OK,
            admin.call("ACL", "SETUSER", "ps", "&foo:1", "&bar:*", "&orders", "&baz", "&zoo:*"));
        assertEquals(OK, admin.call("ACL", "SETUSER", "ps", "allchannels"));
        // foo:* still matches foo:1; bar:* is gone as a literal pattern, orders is gone
        assertEquals(OK, admin.call("ACL", "SETUSER", "ps", "resetchannels", "&foo:*"));
        assertTrue(pattern.closedByServerAfterReadingAll(), "the pattern subscriber closed");
        assertTrue(shard.closedByServerAfterReadingAll(), "the shard subscriber closed");
        assertEquals(1L, admin.call("PUBLISH", "foo:1", "still here"));
        assertEquals("still here", RespClient.text(((List<?>) channel.read()).get(2)));
        assertEquals(1L, admin.call("PUBLISH", "bar:1", "for the bystander"));
        assertEquals("for the bystander", RespClient.text(((List<?>) bystander.read()).get(3)));
      }
    }
  }

  @Test
  void setUserOverTheSubscriber_resp3_repliesThenCloses() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient self = new RespClient(server.port())) {
      assertEquals(OK, admin.call("ACL", "SETUSER", "ps", "on", ">p", "+@all", "~*", "&foo:1"));
      assertTrue(self.call("HELLO", "3", "AUTH", "ps", "p") instanceof Map<?, ?>);
      self.send("SUBSCRIBE", "foo:1");
      self.read();
      self.send("ACL", "SETUSER", "ps", "resetchannels");
      assertEquals(OK, self.read());
      assertTrue(self.closedByServerAfterReadingAll(), "closed after its reply");
    }
  }

  @Test
  void aclLoad_channelsTakenAway_subscriberClosedUnchangedUserKept() throws IOException {
    Path acl = dir.resolve("users.acl");
    String alice = "user alice on >p ~* &* +@all\n";
    Files.writeString(acl, alice + "user doug on >p ~* resetchannels &test* +@all\n");
    try (CuckooServer server =
            TestServers.startFromConfigFile(dir.resolve("cuckoo.conf"), "aclfile " + acl);
        RespClient admin = new RespClient(server.port());
        RespClient kept = subscriber(server.port(), "alice", "SUBSCRIBE", "test1");
        RespClient doug = subscriber(server.port(), "doug", "SUBSCRIBE", "test1")) {
      Files.writeString(acl, alice + "user doug on >p ~* resetchannels &other +@all\n");
      assertEquals(OK, admin.call("ACL", "LOAD"));
      assertTrue(doug.closedByServerAfterReadingAll(), "doug's subscriber closed");
      assertEquals(1L, admin.call("PUBLISH", "test1", "test-message"));
      assertEquals("test-message", RespClient.text(((List<?>) kept.read()).get(2)));
    }
  }

  @Test
  void configUserLines_quotedWords_readAsRedisSplitsThem() throws IOException {
    Path conf = dir.resolve("quoted.conf");
    try (CuckooServer server =
            TestServers.startFromConfigFile(
                conf,
                "user alice on \">pass with spaces\" '~k:*' +@all",
                "user \"bob\" on \">\\x70w\\t\" allkeys +@all");
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("AUTH", "alice", "pass with spaces"));
      assertEquals(
          new Err("NOPERM No permissions to access a key"), client.call("CF.EXISTS", "x", "1"));
      assertEquals(0L, client.call("CF.EXISTS", "k:1", "1"));
      assertEquals(OK, client.call("AUTH", "bob", "pw\t"));
    }
    Path bad = dir.resolve("bad.conf");
    IllegalArgumentException unbalanced =
        assertThrows(
            IllegalArgumentException.class,
            () -> TestServers.startFromConfigFile(bad, "user carol on \">oops +@all"));
    assertEquals(bad + ":5: Unbalanced quotes in configuration line", unbalanced.getMessage());
    IllegalArgumentException glued =
        assertThrows(
            IllegalArgumentException.class,
            () -> TestServers.startFromConfigFile(bad, "user carol on '>a'b +@all"));
    assertEquals(bad + ":5: Unbalanced quotes in configuration line", glued.getMessage());
  }
}
