package dev.cuckoo.server.acl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rules kept in the order given and compacted only losslessly, checked against Redis's own
 * expectations (tests/unit/acl.tcl, "ACL GETUSER provides correct results"), over a catalog with
 * the commands that test names; and what those rules allow.
 */
class AclRulesTest {
  private static final CommandCatalog CATALOG = catalog();

  private static CommandCatalog catalog() {
    CommandCatalog catalog = new CommandCatalog();
    catalog.add("hget", List.of("read", "hash", "fast"), false);
    catalog.add("hset", List.of("write", "hash", "fast"), false);
    catalog.add("get", List.of("read", "string", "fast"), false);
    catalog.add("sadd", List.of("write", "set", "fast"), false);
    catalog.add("select", List.of("fast", "connection"), false);
    catalog.add("debug", List.of("admin", "slow", "dangerous"), false);
    catalog.add("auth", List.of("fast", "connection"), true);
    for (String container : List.of("client", "config", "acl")) {
      catalog.add(container, List.of("slow"), false);
      catalog.add(container + "|list", List.of("admin", "slow", "dangerous"), false);
      catalog.add(container + "|get", List.of("admin", "slow", "dangerous"), false);
      catalog.add(container + "|set", List.of("admin", "slow", "dangerous"), false);
    }
    return catalog;
  }

  private static String commandsAfter(Acl acl, String... rules) {
    assertNull(acl.setUser("adv-test", Arrays.asList(rules)));
    return acl.user("adv-test").selectors().get(0).commands();
  }

  @Test
  void setUser_rulesInRedisTestOrder_describedAsRedisDescribesThem() {
    Acl acl = new Acl(CATALOG, AclRulesTest::literalOrStar);
    assertEquals(
        "+@all -@hash -@slow +hget", commandsAfter(acl, "+@all", "-@hash", "-@slow", "+hget"));
    assertEquals("+@all -@slow +hget -@hash", commandsAfter(acl, "-@hash"));
    assertEquals("+@all -@slow +hget +@hash", commandsAfter(acl, "+@hash"));
    assertEquals("-@all", commandsAfter(acl, "-@all"));
    assertEquals("+@all", commandsAfter(acl, "-@string", "-@slow", "+@all"));
    assertEquals("-@all +@hash", commandsAfter(acl, "-@all", "+@HASH", "+@hash", "+@HaSh"));
    assertEquals("-@all +hget", commandsAfter(acl, "-@all", "+HGET", "+hget", "+hGeT"));
    assertEquals(
        "-@all +@set +@slow +@hash",
        commandsAfter(acl, "-@all", "+@hash", "+@slow", "+@set", "+@set", "+@slow", "+@hash"));
    assertEquals(
        "-@all +hset -hget", commandsAfter(acl, "-@all", "+hget", "-hset", "+hset", "-hget"));
    assertEquals(
        "-@all +client|list +config -acl",
        commandsAfter(
            acl,
            "-@all",
            "+client|list",
            "+client|list",
            "+config|get",
            "+config",
            "+acl|list",
            "-acl"));
    assertEquals(
        "-@all +select|0 +debug",
        commandsAfter(acl, "-@all", "+select|0", "+select|0", "+debug|segfault", "+debug"));
    assertEquals("-@all -@dangerous", commandsAfter(acl, "-@all", "-@dangerous"));
    assertEquals(
        "-@all +config",
        commandsAfter(acl, "-@all", "+config", "+config|get", "-config|set", "+config"));
  }

  @Test
  void check_commandsSubcommandsFirstArgsAndKeys_allowedAsTheRulesSay() {
    Acl acl = new Acl(CATALOG, AclRulesTest::literalOrStar);
    assertNull(
        acl.setUser(
            "u", List.of("on", "nopass", "+@read", "-hget", "+config|get", "+select|0", "%R~k")));
    User user = acl.user("u");
    assertNull(acl.check(user, request("get", Selector.READ, "get", "k")));
    assertEquals(
        new Denial(Denial.Reason.KEY, 1),
        acl.check(user, request("get", Selector.READ, "get", "x")));
    assertEquals(
        new Denial(Denial.Reason.COMMAND, 0),
        acl.check(user, request("hget", Selector.READ, "hget", "k", "f")));
    assertNull(acl.check(user, request("config|get", 0, "config", "get", "port")));
    assertEquals(
        new Denial(Denial.Reason.COMMAND, 0),
        acl.check(user, request("config|set", 0, "config", "set", "port", "1")));
    assertNull(acl.check(user, request("select", 0, "select", "0")));
    assertEquals(
        new Denial(Denial.Reason.COMMAND, 0), acl.check(user, request("select", 0, "select", "1")));
    // no_auth commands run for every user
    assertNull(acl.check(user, request("auth", 0, "auth", "u", "p")));
    assertEquals("-@all +@read -hget +config|get +select|0", user.selectors().get(0).commands());
    assertEquals("%R~k", user.selectors().get(0).keys());
  }

  @Test
  void check_literalThenStarPatterns_matchByPrefixWithoutTheGlob_othersAskTheGlob() {
    int[] globCalls = {0};
    Acl acl =
        new Acl(
            CATALOG,
            (pattern, text) -> {
              globCalls[0]++;
              return literalOrStar(pattern, text);
            });
    assertNull(acl.setUser("u", List.of("on", "nopass", "+get", "%R~ab*", "%R~x?*", "%R~y\\*")));
    User user = acl.user("u");
    for (String key : List.of("ab", "abc", "ab*", "ab\u00ff")) {
      assertNull(acl.check(user, request("get", Selector.READ, "get", key)), key);
    }
    assertEquals(0, globCalls[0], "a literal-then-star pattern asked the glob");
    for (String key : List.of("a", "", "xab", "Ab", "ba")) {
      assertEquals(
          new Denial(Denial.Reason.KEY, 1),
          acl.check(user, request("get", Selector.READ, "get", key)),
          key);
    }
    // "x?*" and "y\\*" are not plain prefixes: the glob decides (here: literally equal only)
    assertEquals(5 * 2, globCalls[0]);
    assertNull(acl.check(user, request("get", Selector.READ, "get", "x?*")));
    assertEquals(
        new Denial(Denial.Reason.KEY, 1),
        acl.check(user, request("get", Selector.READ, "get", "y*z")));
  }

  @Test
  void passwords_storedAsSha256_checkedWhateverTheirBytes() {
    Acl acl = new Acl(CATALOG, AclRulesTest::literalOrStar);
    assertNull(acl.setUser("u", List.of("on", ">pass\u00e9")));
    // the SHA-256 of "pass" followed by byte 0xE9 (one char per byte)
    assertEquals(List.of(Passwords.hash(Latin1.bytes("pass\u00e9"))), acl.user("u").passwords());
    assertEquals(
        "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8",
        Passwords.hash("password".getBytes(StandardCharsets.US_ASCII)));
    assertEquals(acl.user("u"), acl.authenticate("u", Latin1.bytes("pass\u00e9")));
    assertNull(acl.authenticate("u", Latin1.bytes("pass")));
    assertNull(acl.authenticate("nobody", Latin1.bytes("pass")));
    assertNull(acl.setUser("u", List.of("off")));
    assertNull(acl.authenticate("u", Latin1.bytes("pass\u00e9")));
  }

  /** A glob for these tests: "*" matches everything, other patterns themselves. */
  private static boolean literalOrStar(byte[] pattern, byte[] text) {
    return Arrays.equals(pattern, "*".getBytes(StandardCharsets.US_ASCII))
        || Arrays.equals(pattern, text);
  }

  /** A request for {@code command} whose key (if {@code access} is not 0) is the last argument. */
  private static AccessRequest request(String command, int access, String... args) {
    AclCommand resolved = CATALOG.find(command);
    byte[][] bytes = new byte[args.length][];
    for (int i = 0; i < args.length; i++) {
      bytes[i] = args[i].getBytes(StandardCharsets.US_ASCII);
    }
    boolean keyed = access != 0;
    return new AccessRequest() {
      @Override
      public AclCommand command() {
        return resolved;
      }

      @Override
      public int argCount() {
        return bytes.length;
      }

      @Override
      public byte[] arg(int index) {
        return bytes[index];
      }

      @Override
      public int keyCount() {
        return keyed ? 1 : 0;
      }

      @Override
      public int keyPosition(int index) {
        return 1;
      }

      @Override
      public int keyAccess(int index) {
        return access;
      }

      @Override
      public int channelCount() {
        return 0;
      }

      @Override
      public int channelPosition(int index) {
        return 0;
      }

      @Override
      public boolean channelIsPattern(int index) {
        return false;
      }
    };
  }
}
