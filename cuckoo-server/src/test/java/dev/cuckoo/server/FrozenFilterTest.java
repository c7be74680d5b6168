package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A filter a snapshot is writing without its stripe lock ({@link Keyspace#freeze}): commands
 * that change it wait until it is thawed; its reads and commands on other keys of the same
 * stripe go on.
 */
class FrozenFilterTest {
  private final Keyspace keyspace = new Keyspace();
  private final Commands commands = new Commands(
      new ServerContext(TestServers.memoryOnly().build(), new CfConfig(), keyspace),
      WriteLog.NONE);

  private String run(String... args) {
    Session session = new Session(1, new Reply(UnpooledByteBufAllocator.DEFAULT),
        new Authentication(true), false);
    byte[][] argv = new byte[args.length][];
    for (int i = 0; i < args.length; i++) {
      argv[i] = args[i].getBytes(StandardCharsets.UTF_8);
    }
    commands.execute(session, argv);
    ByteBuf out = session.reply().take();
    try {
      return out.toString(StandardCharsets.UTF_8).trim();
    } finally {
      out.release();
    }
  }

  /** Returns a key other than {@code key} that falls in the same lock stripe. */
  private static String stripeMate(String key) {
    int stripe = Keyspace.stripeOf(new Key(key.getBytes(StandardCharsets.UTF_8)));
    for (int i = 0; ; i++) {
      String other = "mate" + i;
      if (Keyspace.stripeOf(new Key(other.getBytes(StandardCharsets.UTF_8))) == stripe) {
        return other;
      }
    }
  }

  @Test
  void frozenFilter_writesWaitReadsAndStripeMatesGoOn() throws Exception {
    assertEquals("+OK", run("CF.RESERVE", "big", "1000"));
    assertEquals(":1", run("CF.ADD", "big", "before"));
    var filter = keyspace.get(new Key("big".getBytes(StandardCharsets.UTF_8)));
    keyspace.freeze(filter);
    CompletableFuture<String> write =
        CompletableFuture.supplyAsync(() -> run("CF.ADD", "big", "during"));
    Thread.sleep(300);
    assertFalse(write.isDone(), "a write to the frozen filter waits");
    assertEquals(":1", run("CF.EXISTS", "big", "before"), "reads go on");
    assertEquals(":1", run("CF.ADD", stripeMate("big"), "x"), "the stripe's other keys go on");
    assertEquals(":1", run("DEL", stripeMate("big")));
    assertEquals(1L, filter.size(), "not changed while frozen");
    keyspace.thaw(filter);
    assertEquals(":1", write.get(10, TimeUnit.SECONDS));
    assertEquals(2L, filter.size());
    assertTrue(keyspace.frozen(filter) == null);
  }
}
