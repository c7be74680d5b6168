package dev.cuckoo.server.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.TestServers;
import dev.cuckoo.server.command.CfConfig;
import dev.cuckoo.server.command.Commands;
import dev.cuckoo.server.command.ServerContext;
import dev.cuckoo.server.command.Session;
import dev.cuckoo.server.command.WriteLog;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.protocol.Authentication;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.protocol.RespDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A filter a snapshot is writing without its stripe lock ({@link Keyspace#freeze}): commands that
 * change it wait until it is thawed; its reads and commands on other keys of the same stripe go on.
 */
class FrozenFilterTest {
  private final Keyspace keyspace = new Keyspace();
  private final Commands commands =
      new Commands(
          new ServerContext(TestServers.memoryOnly().build(), new CfConfig(), keyspace),
          WriteLog.NONE);

  private String run(String... args) {
    Session session =
        new Session(
            1, new Reply(UnpooledByteBufAllocator.DEFAULT), new Authentication(true), false);
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

  /** A connection as the server builds it, on an embedded channel (its own event loop). */
  private EmbeddedChannel connection() throws Exception {
    EmbeddedChannel channel = new EmbeddedChannel(false, false);
    Authentication authentication = new Authentication(true);
    channel.attr(Authentication.KEY).set(authentication);
    ServerContext context =
        new ServerContext(TestServers.memoryOnly().build(), new CfConfig(), keyspace);
    channel
        .pipeline()
        .addLast(
            new RespDecoder(1 << 20, 1024, 1 << 20, authentication),
            new CommandHandler(context, commands));
    channel.register();
    return channel;
  }

  private static String replies(EmbeddedChannel channel) {
    StringBuilder out = new StringBuilder();
    for (ByteBuf reply; (reply = channel.readOutbound()) != null; ) {
      out.append(reply.toString(StandardCharsets.UTF_8));
      reply.release();
    }
    return out.toString();
  }

  @Test
  void frozenFilter_connectionRetriesAfterThaw_eventLoopNotBlockedOrderKept() throws Exception {
    assertEquals("+OK", run("CF.RESERVE", "big", "1000"));
    var filter = keyspace.get(new Key("big".getBytes(StandardCharsets.UTF_8)));
    keyspace.freeze(filter);
    EmbeddedChannel channel = connection();
    CompletableFuture<Void> written =
        CompletableFuture.runAsync(
            () ->
                channel.writeInbound(
                    Unpooled.copiedBuffer(
                        "*2\r\n$4\r\nPING\r\n$1\r\na\r\n"
                            + "*3\r\n$6\r\nCF.ADD\r\n$3\r\nbig\r\n$1\r\nx\r\n"
                            + "*2\r\n$4\r\nECHO\r\n$5\r\nafter\r\n",
                        StandardCharsets.UTF_8)));
    // the write to the frozen filter does not block the connection's event loop
    written.get(10, TimeUnit.SECONDS);
    channel.runPendingTasks();
    channel.checkException();
    assertEquals("$1\r\na\r\n", replies(channel), "replies before the frozen write only");
    assertEquals(0L, filter.size());
    keyspace.thaw(filter);
    channel.runPendingTasks();
    assertEquals(":1\r\n$5\r\nafter\r\n", replies(channel), "retried, then the rest in order");
    assertEquals(1L, filter.size());
    channel.finishAndReleaseAll();
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
