package dev.cuckoo.server.acl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What an ACL change takes away from a user's subscribers (Redis's getUpcomingChannelList and
 * ACLShouldKillPubsubClient), and acl-pubsub-default for new users, selectors and reset.
 */
class ChannelRevocationTest {
  private static final CommandCatalog CATALOG = new CommandCatalog();

  /** A glob that knows only a trailing '*'. */
  private static boolean prefixGlob(byte[] pattern, byte[] text) {
    String glob = new String(pattern, StandardCharsets.ISO_8859_1);
    String name = new String(text, StandardCharsets.ISO_8859_1);
    return glob.endsWith("*")
        ? name.startsWith(glob.substring(0, glob.length() - 1))
        : glob.equals(name);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static List<ChannelRevocation> change(Acl acl, String... rules) {
    List<ChannelRevocation> revoked = new ArrayList<>();
    assertNull(acl.setUser("ps", Arrays.asList(rules), revoked));
    return revoked;
  }

  @Test
  void setUser_supersetOrAllChannels_revokesNothing() {
    Acl acl = new Acl(CATALOG, ChannelRevocationTest::prefixGlob);
    assertEquals(List.of(), change(acl, "&foo:1", "&bar:*"));
    assertEquals(List.of(), change(acl, "&orders", "(&zoo:*)"));
    assertEquals(List.of(), change(acl, "allchannels"));
  }

  @Test
  void setUser_channelsTakenAway_revocationMatchesChannelsByGlobPatternsLiterally() {
    Acl acl = new Acl(CATALOG, ChannelRevocationTest::prefixGlob);
    change(acl, "&foo:1", "&bar:*");
    List<ChannelRevocation> revoked = change(acl, "resetchannels", "&foo:*");
    assertEquals(1, revoked.size());
    ChannelRevocation revocation = revoked.get(0);
    assertSame(acl.user("ps"), revocation.user());
    assertTrue(revocation.allows(bytes("foo:1"), false));
    assertFalse(revocation.allows(bytes("bar:1"), false));
    assertTrue(revocation.allows(bytes("foo:*"), true));
    assertFalse(revocation.allows(bytes("foo:1*"), true));
    // from every channel to some: a revocation too
    change(acl, "allchannels");
    assertEquals(1, change(acl, "resetchannels", "&foo:*").size());
  }

  @Test
  void load_keptUsersChecked_removedUsersListedApart() {
    Acl acl = new Acl(CATALOG, ChannelRevocationTest::prefixGlob);
    change(acl, "&test*");
    assertNull(acl.setUser("kept", List.of("&*")));
    List<User> removed = new ArrayList<>();
    List<ChannelRevocation> revoked = new ArrayList<>();
    assertNull(
        acl.load(
            "users.acl",
            List.of("user ps on &other", "user default on nopass ~* resetchannels +@all"),
            removed,
            revoked));
    assertSame(acl.defaultUser(), revoked.get(0).user());
    assertSame(acl.user("ps"), revoked.get(1).user());
    assertEquals(2, revoked.size());
    assertEquals(List.of("kept"), removed.stream().map(User::name).toList());
  }

  @Test
  void allChannelsByDefault_newUsersSelectorsAndResetOnly() {
    Acl acl = new Acl(CATALOG, ChannelRevocationTest::prefixGlob);
    assertNull(acl.setUser("before", List.of()));
    acl.allChannelsByDefault(true);
    assertNull(acl.setUser("after", List.of("(~x)")));
    assertEquals("&*", acl.user("after").selectors().get(0).channels());
    assertEquals("&*", acl.user("after").selectors().get(1).channels());
    assertEquals("", acl.user("before").selectors().get(0).channels());
    assertNull(acl.setUser("before", List.of("reset")));
    assertEquals("&*", acl.user("before").selectors().get(0).channels());
    acl.allChannelsByDefault(false);
    assertNull(acl.setUser("before", List.of("reset")));
    assertEquals("", acl.user("before").selectors().get(0).channels());
    assertEquals("&*", acl.user("after").selectors().get(0).channels());
  }
}
