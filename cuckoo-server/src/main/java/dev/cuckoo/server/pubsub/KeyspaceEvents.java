package dev.cuckoo.server.pubsub;

import dev.cuckoo.server.config.EventClasses;
import java.nio.charset.StandardCharsets;

/**
 * Keyspace notifications, as Redis's {@code notify-keyspace-events}: when a command changes a key,
 * a message on {@code __keyspace@<db>__:<key>} naming the event (flag {@code K}) and one on {@code
 * __keyevent@<db>__:<event>} naming the key (flag {@code E}), for the classes of events the flags
 * turn on: {@code g} generic ({@code del}, {@code rename_from}, {@code rename_to}, {@code
 * move_from}, {@code move_to}, {@code copy_to}, {@code expire}, {@code persist}, {@code restore}),
 * {@code x} expired, {@code n} new keys, {@code d} module ({@code A} is every class but {@code n}
 * and {@code m}). Off (the empty string) by default. RedisBloom publishes no event for its own
 * writes, so CF commands raise only the generic and new-key events Redis itself raises around them.
 * Thread-safe: the flags are read once per event.
 */
public final class KeyspaceEvents {
  /** K: events on {@code __keyspace@<db>__:<key>}. */
  public static final int KEYSPACE = EventClasses.KEYSPACE;

  /** E: events on {@code __keyevent@<db>__:<event>}. */
  public static final int KEYEVENT = EventClasses.KEYEVENT;

  /** g: generic commands (DEL, EXPIRE, RENAME, ...). */
  public static final int GENERIC = EventClasses.GENERIC;

  /** x: a key expired. */
  public static final int EXPIRED = EventClasses.EXPIRED;

  /** n: a key was created. */
  public static final int NEW = EventClasses.NEW;

  private final PubSub pubSub;
  private volatile int flags;

  /** Creates the notifier, off, publishing through {@code pubSub}. */
  public KeyspaceEvents(PubSub pubSub) {
    this.pubSub = pubSub;
  }

  /** Reads Redis's flag characters, as {@link EventClasses#parse}: -1 for a bad character. */
  public static int parse(String text) {
    return EventClasses.parse(text);
  }

  /** Writes flags as Redis's CONFIG GET shows them ({@link EventClasses#format}). */
  public static String format(int flags) {
    return EventClasses.format(flags);
  }

  /** Sets the flags ({@link #parse}d). */
  public void flags(int flags) {
    this.flags = flags;
  }

  /** Returns the flags. */
  public int flags() {
    return flags;
  }

  /** Returns true if events of class {@code type} are published now (so a caller may skip work). */
  public boolean wants(int type) {
    int now = flags;
    return (now & type) != 0 && (now & (KEYSPACE | KEYEVENT)) != 0;
  }

  /**
   * Publishes {@code event} on {@code key} of database {@code db} if its class {@code type} is on,
   * as Redis's notifyKeyspaceEvent.
   */
  public void notify(int type, String event, byte[] key, int db) {
    int now = flags;
    if ((now & type) == 0) {
      return;
    }
    byte[] eventBytes = event.getBytes(StandardCharsets.US_ASCII);
    if ((now & KEYSPACE) != 0) {
      byte[] prefix = ("__keyspace@" + db + "__:").getBytes(StandardCharsets.US_ASCII);
      byte[] channel = new byte[prefix.length + key.length];
      System.arraycopy(prefix, 0, channel, 0, prefix.length);
      System.arraycopy(key, 0, channel, prefix.length, key.length);
      pubSub.publish(channel, eventBytes, false);
    }
    if ((now & KEYEVENT) != 0) {
      byte[] channel = ("__keyevent@" + db + "__:" + event).getBytes(StandardCharsets.US_ASCII);
      pubSub.publish(channel, key, false);
    }
  }
}
