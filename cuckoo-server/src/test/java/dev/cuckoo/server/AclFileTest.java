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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Users kept across restarts, as Redis keeps them: the aclfile (ACL SAVE, ACL LOAD all or nothing,
 * a broken file stops the start naming file and line) or {@code user} lines in the config file
 * (CONFIG REWRITE writes them), never both.
 */
@ExtendWith(LeakCheck.class)
class AclFileTest {
  private static final Simple OK = new Simple("OK");

  @TempDir Path dir;

  private static List<String> texts(Object reply) {
    return AclCommandsTest.texts(reply);
  }

  @Test
  void aclSave_restart_usersStillThere() throws IOException {
    Path acl = dir.resolve("users.acl");
    Files.writeString(acl, "user alice on >p1 ~cf:* +@cuckoo\n");
    Path conf = dir.resolve("cuckoo.conf");
    List<String> before;
    try (CuckooServer server = TestServers.startFromConfigFile(conf, "aclfile " + acl);
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("AUTH", "alice", "p1"));
      assertEquals(1L, client.call("CF.ADD", "cf:1", "x"));
      assertEquals(
          new Err("NOPERM User alice has no permissions to run the 'acl|setuser' command"),
          client.call("ACL", "SETUSER", "bob"));
      try (RespClient admin = new RespClient(server.port())) {
        assertEquals(OK, admin.call("ACL", "SETUSER", "bob", "on", ">p2", "~*", "+@read"));
        assertEquals(OK, admin.call("ACL", "SAVE"));
        before = texts(admin.call("ACL", "LIST"));
      }
    }
    assertEquals(
        List.of(
            "user alice on sanitize-payload #"
                + AclCommandsTest.sha256("p1")
                + " ~cf:* resetchannels -@all +@cuckoo",
            "user bob on sanitize-payload #"
                + AclCommandsTest.sha256("p2")
                + " ~* resetchannels -@all +@read",
            "user default on nopass sanitize-payload ~* &* +@all"),
        Files.readAllLines(acl, StandardCharsets.UTF_8));
    try (CuckooServer server = CuckooServer.start(ServerConfig.parse(conf.toString()));
        RespClient client = new RespClient(server.port())) {
      assertEquals(before, texts(client.call("ACL", "LIST")));
      assertEquals(OK, client.call("AUTH", "bob", "p2"));
      assertEquals(0L, client.call("CF.EXISTS", "cf:1", "x"));
    }
  }

  @Test
  void aclLoad_editedFile_replacesUsersAllOrNothing() throws IOException {
    Path acl = dir.resolve("users.acl");
    Files.writeString(acl, "user alice on >p1 ~* +@all\n");
    try (CuckooServer server =
            TestServers.startFromConfigFile(dir.resolve("cuckoo.conf"), "aclfile " + acl);
        RespClient admin = new RespClient(server.port());
        RespClient alice = new RespClient(server.port())) {
      assertEquals(OK, alice.call("AUTH", "alice", "p1"));
      // a broken line: nothing changes, every error names the file and line
      Files.writeString(acl, "user carol on nopass ~* +@all\nuser dave on +nosuch bogus\nfoo\n");
      Object refused = admin.call("ACL", "LOAD");
      assertEquals(
          new Err(
              "ERR "
                  + acl
                  + ":2: Error in applying operation '+nosuch': Unknown command or category name"
                  + " in ACL. "
                  + acl
                  + ":2: Syntax error. "
                  + acl
                  + ":3 should start with user keyword followed by the username. WARNING: ACL"
                  + " errors detected, no change to the previously active ACL rules was"
                  + " performed"),
          refused);
      assertEquals(List.of("alice", "default"), texts(admin.call("ACL", "USERS")));
      // the edited file replaces everyone; alice, left out, is gone and her connection closed
      Files.writeString(acl, "user carol on nopass ~* +@all\n\nuser default on >dp ~* &* +@all\n");
      assertEquals(OK, admin.call("ACL", "LOAD"));
      assertTrue(alice.closedByServer(), "alice's connection closed");
      assertEquals(List.of("carol", "default"), texts(admin.call("ACL", "USERS")));
      try (RespClient client = new RespClient(server.port())) {
        assertEquals(new Err("NOAUTH Authentication required."), client.call("PING"));
        assertEquals(OK, client.call("AUTH", "dp"));
        assertEquals(OK, client.call("AUTH", "carol", "anything"));
      }
    }
  }

  @Test
  void start_brokenAclFile_stopsNamingFileAndLine() throws IOException {
    Path acl = dir.resolve("users.acl");
    Files.writeString(acl, "user alice on >p1 ~* +@all\nuser bob on %X~k\n");
    IllegalArgumentException broken =
        assertThrows(
            IllegalArgumentException.class,
            () -> TestServers.startFromConfigFile(dir.resolve("a.conf"), "aclfile " + acl));
    assertEquals(
        "Aborting Redis startup because of ACL errors: "
            + acl
            + ":2: Syntax error. WARNING: ACL errors detected, no change to the previously active"
            + " ACL rules was performed",
        broken.getMessage());
    Path missing = dir.resolve("missing.acl");
    IllegalArgumentException absent =
        assertThrows(
            IllegalArgumentException.class,
            () -> TestServers.startFromConfigFile(dir.resolve("b.conf"), "aclfile " + missing));
    assertEquals(
        "Aborting Redis startup because of ACL errors: Error loading ACLs, opening file '"
            + missing
            + "': No such file or directory",
        absent.getMessage());
    IllegalArgumentException both =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                TestServers.startFromConfigFile(
                    dir.resolve("c.conf"), "aclfile " + acl, "user alice on nopass"));
    assertTrue(
        both.getMessage()
            .startsWith(
                "Configuring Redis with users defined in redis.conf and at the same setting an"
                    + " ACL file path is invalid."),
        both.getMessage());
  }

  @Test
  void configUserLines_loadedRewrittenAndReadBack_badLineNamed() throws IOException {
    Path conf = dir.resolve("cuckoo.conf");
    try (CuckooServer server =
            TestServers.startFromConfigFile(conf, "user alice on >p1 ~cf:* +@cuckoo");
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("ACL", "SETUSER", "bob", "on", ">p2", "+@all", "~*"));
      assertEquals(
          new Err(
              "ERR This Redis instance is not configured to use an ACL file. You may want to"
                  + " specify users via the ACL SETUSER command and then issue a CONFIG REWRITE"
                  + " (assuming you have a Redis configuration file set) in order to store users"
                  + " in the Redis configuration."),
          client.call("ACL", "SAVE"));
      assertEquals(OK, client.call("CONFIG", "REWRITE"));
    }
    List<String> lines = Files.readAllLines(conf, StandardCharsets.UTF_8);
    String alice =
        "user alice on sanitize-payload #"
            + AclCommandsTest.sha256("p1")
            + " ~cf:* resetchannels -@all +@cuckoo";
    assertEquals(alice, lines.get(4), lines.toString());
    assertTrue(lines.contains("user default on nopass sanitize-payload ~* &* +@all"));
    try (CuckooServer server = CuckooServer.start(ServerConfig.parse(conf.toString()));
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("AUTH", "bob", "p2"));
      assertEquals(alice, RespClient.text(((List<?>) client.call("ACL", "LIST")).get(0)));
    }
    Path bad = dir.resolve("bad.conf");
    IllegalArgumentException broken =
        assertThrows(
            IllegalArgumentException.class,
            () -> TestServers.startFromConfigFile(bad, "user alice on >p1", "user bob on bogus"));
    assertEquals(bad + ":6: Error in user declaration 'bogus': Syntax error", broken.getMessage());
  }
}
