package dev.cuckoo.server.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.config.OutputBufferLimit;
import dev.cuckoo.server.protocol.Authentication;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.pubsub.Message;
import dev.cuckoo.server.session.Session;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The output limits of a subscriber: past the hard limit at once, above the soft limit only after
 * its seconds (a fake clock), and a soft excursion forgotten once the backlog falls below it.
 */
class SubscriberOutboxTest {
  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final Session session =
      new Session(1, new Reply(UnpooledByteBufAllocator.DEFAULT), new Authentication(true), false);
  private final AtomicLong nowMillis = new AtomicLong(1_000_000);
  private final AtomicInteger flushes = new AtomicInteger();

  /** A message of about {@code bytes} bytes on the wire. */
  private static Message message(int bytes) {
    return new Message(
        "message", null, "c".getBytes(StandardCharsets.UTF_8), new byte[Math.max(0, bytes - 30)]);
  }

  private SubscriberOutbox outbox(OutputBufferLimit limit) {
    return new SubscriberOutbox(
        channel,
        session,
        limit,
        () -> {
          flushes.incrementAndGet();
          ByteBuf out = session.reply().take();
          if (out != null) {
            out.release();
          }
        },
        nowMillis::get);
  }

  @AfterEach
  void release() {
    session.reply().discard();
    channel.finishAndReleaseAll();
  }

  @Test
  void deliver_pastTheHardLimit_closesAtOnce() {
    SubscriberOutbox outbox = outbox(new OutputBufferLimit(1000, 0, 0));
    outbox.deliver(message(600));
    assertTrue(channel.isActive());
    outbox.deliver(message(600));
    assertFalse(channel.isActive());
    assertTrue(session.closeRequested());
  }

  @Test
  void deliver_aboveTheSoftLimit_closesOnlyAfterItsSeconds() {
    SubscriberOutbox outbox = outbox(new OutputBufferLimit(0, 1000, 60));
    outbox.deliver(message(1200));
    nowMillis.addAndGet(60_000);
    outbox.deliver(message(100));
    assertTrue(channel.isActive(), "60 s above the soft limit is still allowed");
    nowMillis.addAndGet(1);
    outbox.deliver(message(100));
    assertFalse(channel.isActive());
  }

  @Test
  void deliver_backBelowTheSoftLimit_startsTheClockAgain() {
    SubscriberOutbox outbox = outbox(new OutputBufferLimit(0, 1000, 60));
    outbox.deliver(message(1200));
    channel.runPendingTasks();
    assertEquals(1, flushes.get(), "one flush task for the messages of one loop turn");
    nowMillis.addAndGet(59_000);
    outbox.deliver(message(100));
    channel.runPendingTasks();
    nowMillis.addAndGet(59_000);
    outbox.deliver(message(1200));
    nowMillis.addAndGet(59_000);
    outbox.deliver(message(100));
    assertTrue(channel.isActive(), "above the soft limit for 59 s since it was drained");
  }
}
