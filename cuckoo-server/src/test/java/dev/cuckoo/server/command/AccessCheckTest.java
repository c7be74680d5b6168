package dev.cuckoo.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoo.server.TestServers;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.protocol.Authentication;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.session.Session;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The ACL's view of a line through the dispatcher's check: each key gets the position and the
 * access of the key spec that finds it, also for commands with several key specs.
 */
class AccessCheckTest {
  private final ServerContext context =
      new ServerContext(TestServers.memoryOnly().build().parameters(), new Keyspace());
  private final Commands commands = new Commands(context);
  private final Session session =
      new Session(1, new Reply(UnpooledByteBufAllocator.DEFAULT), new Authentication(true), false);

  private String run(String... words) {
    byte[][] line = new byte[words.length][];
    for (int i = 0; i < words.length; i++) {
      line[i] = words[i].getBytes(StandardCharsets.UTF_8);
    }
    commands.execute(session, line);
    ByteBuf out = session.reply().take();
    try {
      return out.toString(StandardCharsets.UTF_8).trim();
    } finally {
      out.release();
    }
  }

  @Test
  void dryRun_keysOfTwoSpecs_eachWithItsSpecsAccess() {
    // reads of r*, writes of w*: COPY reads its source (first spec) and writes its destination
    assertEquals("+OK", run("ACL", "SETUSER", "u", "on", "nopass", "%R~r*", "%W~w*", "+@all"));
    assertEquals("+OK", run("ACL", "DRYRUN", "u", "COPY", "r1", "w1"));
    // the second key is the destination: written, so r2 is denied although r1 may be read
    assertEquals(
        "$48\r\nUser u has no permissions to access the 'r2' key",
        run("ACL", "DRYRUN", "u", "COPY", "r1", "r2"));
    assertEquals(
        "$48\r\nUser u has no permissions to access the 'w1' key",
        run("ACL", "DRYRUN", "u", "COPY", "w1", "r1"));
  }
}
