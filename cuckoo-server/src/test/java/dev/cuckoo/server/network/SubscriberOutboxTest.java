package dev.cuckoo.server.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.protocol.Authentication;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.pubsub.Message;
import dev.cuckoo.server.session.Session;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A subscriber's outbox: messages join the reply stream and one flush task per loop turn writes
 * them; the output buffer limit is asked after every message, and a connection past it closes at
 * once (the limit's arithmetic is OutputLimitCheckTest's).
 */
class SubscriberOutboxTest {
  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final Session session =
      new Session(1, new Reply(UnpooledByteBufAllocator.DEFAULT), new Authentication(true), false);
  private final AtomicInteger flushes = new AtomicInteger();
  private final AtomicInteger checks = new AtomicInteger();

  /** A message of about {@code bytes} bytes on the wire. */
  private static Message message(int bytes) {
    return new Message(
        "message", null, "c".getBytes(StandardCharsets.UTF_8), new byte[Math.max(0, bytes - 30)]);
  }

  /** An outbox whose limit is passed once the reply stream holds {@code limitBytes} or more. */
  private SubscriberOutbox outbox(int limitBytes) {
    return new SubscriberOutbox(
        channel,
        session,
        () -> {
          checks.incrementAndGet();
          return session.reply().pendingBytes() >= limitBytes;
        },
        () -> {
          flushes.incrementAndGet();
          ByteBuf out = session.reply().take();
          if (out != null) {
            out.release();
          }
        });
  }

  @AfterEach
  void release() {
    session.reply().discard();
    channel.finishAndReleaseAll();
  }

  @Test
  void deliver_pastTheLimit_closesAtOnce() {
    SubscriberOutbox outbox = outbox(1000);
    outbox.deliver(message(600));
    assertTrue(channel.isActive());
    outbox.deliver(message(600));
    assertFalse(channel.isActive());
    assertEquals(2, checks.get(), "asked after each message");
    outbox.deliver(message(10));
    assertEquals(2, checks.get(), "nothing more is added once closed");
  }

  @Test
  void deliver_messagesOfOneLoopTurn_oneFlush() {
    SubscriberOutbox outbox = outbox(Integer.MAX_VALUE);
    outbox.deliver(message(100));
    outbox.deliver(message(100));
    channel.runPendingTasks();
    assertEquals(1, flushes.get(), "one flush task for the messages of one loop turn");
    outbox.deliver(message(100));
    channel.runPendingTasks();
    assertEquals(2, flushes.get());
    assertTrue(channel.isActive());
  }
}
