package dev.cuckoo.server.network;

import dev.cuckoo.server.pubsub.Frame;
import dev.cuckoo.server.pubsub.Subscriber;
import dev.cuckoo.server.session.Session;
import io.netty.channel.Channel;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Delivers published messages to one connection: each is appended to the connection's reply stream
 * on its own event loop (after the replies already there, so a SUBSCRIBE confirmation precedes the
 * channel's messages) and flushed by a task that runs once the loop is free.
 *
 * <p>A subscriber (or MONITOR) that reads slower than messages arrive would make the server hold
 * them all; as Redis's {@code client-output-buffer-limit} (pubsub class: default 32mb 8mb 60; a
 * MONITOR is of the normal class), the connection is closed when what waits for it (reply stream
 * and socket queue) passes its class's limit, checked at every message.
 *
 * <p>A message published on another event loop waits in a queue until this connection's loop takes
 * it: by a task, or earlier, before the loop reads the connection's next request ({@link
 * #takeWaiting}). So, as in Redis, a message published before a request of this connection ran
 * precedes that request's reply: a PUBLISH acknowledged to its client is in the queue before the
 * client can send this connection anything more.
 */
final class SubscriberOutbox implements Subscriber.Outbox {
  private final Channel channel;
  private final Session session;
  private final BooleanSupplier overLimit;
  private final Runnable flush;
  private boolean flushScheduled;
  // messages from other event loops, in the order they were published
  private final Queue<Frame> waiting = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean takeScheduled = new AtomicBoolean();

  /**
   * Creates the outbox of a connection.
   *
   * @param channel the connection
   * @param session its session (read and written only on the channel's event loop)
   * @param overLimit true (logged and counted) once what waits for the connection passed its output
   *     buffer limit
   * @param flush writes the session's pending replies (run on the event loop)
   */
  SubscriberOutbox(Channel channel, Session session, BooleanSupplier overLimit, Runnable flush) {
    this.channel = channel;
    this.session = session;
    this.overLimit = overLimit;
    this.flush = flush;
  }

  @Override
  public void deliver(Frame message) {
    if (channel.eventLoop().inEventLoop()) {
      takeWaiting();
      append(message);
      return;
    }
    waiting.add(message);
    if (takeScheduled.compareAndSet(false, true)) {
      try {
        channel
            .eventLoop()
            .execute(
                () -> {
                  takeScheduled.set(false);
                  takeWaiting();
                });
      } catch (RejectedExecutionException e) {
        // the server is stopping: the connection closes with it
      }
    }
  }

  /**
   * Appends the messages published on other event loops that wait for this connection, oldest
   * first. Called on the connection's event loop, before it reads a request.
   */
  void takeWaiting() {
    Frame message;
    while ((message = waiting.poll()) != null) {
      append(message);
    }
  }

  private void append(Frame message) {
    if (!channel.isActive() || session.closeRequested() || session.holdWhileRunning(message)) {
      return;
    }
    message.writeTo(session.reply());
    if (overLimit.getAsBoolean()) {
      channel.close();
      return;
    }
    if (!flushScheduled) {
      flushScheduled = true;
      channel
          .eventLoop()
          .execute(
              () -> {
                flushScheduled = false;
                if (channel.isActive()) {
                  flush.run();
                }
              });
    }
  }
}
