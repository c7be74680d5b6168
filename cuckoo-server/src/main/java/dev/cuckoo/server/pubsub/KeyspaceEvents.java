package dev.cuckoo.server.pubsub;

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
  public static final int KEYSPACE = 1;

  /** E: events on {@code __keyevent@<db>__:<event>}. */
  public static final int KEYEVENT = 1 << 1;

  /** g: generic commands (DEL, EXPIRE, RENAME, ...). */
  public static final int GENERIC = 1 << 2;

  /** x: a key expired. */
  public static final int EXPIRED = 1 << 8;

  /** e: a key was evicted (never here: the server evicts nothing). */
  public static final int EVICTED = 1 << 9;

  /** m: a key was looked up and missing. */
  public static final int KEY_MISS = 1 << 11;

  /** d: a module's type (RedisBloom raises none for CF). */
  public static final int MODULE = 1 << 13;

  /** n: a key was created. */
  public static final int NEW = 1 << 14;

  // Redis's class flags in the order keyspaceEventsFlagsToString writes them (A: all but n and m)
  private static final String CLASSES = "g$lshzxetdn";
  private static final int[] CLASS_BITS = {
    GENERIC, 1 << 3, 1 << 4, 1 << 5, 1 << 6, 1 << 7, EXPIRED, EVICTED, 1 << 10, MODULE, NEW
  };
  private static final int ALL =
      GENERIC | 1 << 3 | 1 << 4 | 1 << 5 | 1 << 6 | 1 << 7 | EXPIRED | EVICTED | 1 << 10 | MODULE;

  /** Redis's error for a flag it does not know. */
  public static final String INVALID = "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";

  private final PubSub pubSub;
  private volatile int flags;

  /** Creates the notifier, off, publishing through {@code pubSub}. */
  public KeyspaceEvents(PubSub pubSub) {
    this.pubSub = pubSub;
  }

  /**
   * Reads Redis's flag characters ({@code "KEA"}, {@code "Ex"}, {@code ""} for none).
   *
   * @return the flags, or -1 if a character is not one of {@code Ag$lshzxeKEtmdn}
   */
  public static int parse(String text) {
    int parsed = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      int index = CLASSES.indexOf(c);
      if (index >= 0) {
        parsed |= CLASS_BITS[index];
      } else if (c == 'A') {
        parsed |= ALL;
      } else if (c == 'K') {
        parsed |= KEYSPACE;
      } else if (c == 'E') {
        parsed |= KEYEVENT;
      } else if (c == 'm') {
        parsed |= KEY_MISS;
      } else {
        return -1;
      }
    }
    return parsed;
  }

  /** Writes flags as Redis's CONFIG GET shows them: the classes (or A), then K, E and m. */
  public static String format(int flags) {
    StringBuilder text = new StringBuilder();
    if ((flags & ALL) == ALL) {
      text.append('A');
      if ((flags & NEW) != 0) {
        text.append('n');
      }
    } else {
      for (int i = 0; i < CLASS_BITS.length; i++) {
        if ((flags & CLASS_BITS[i]) != 0) {
          text.append(CLASSES.charAt(i));
        }
      }
    }
    if ((flags & KEYSPACE) != 0) {
      text.append('K');
    }
    if ((flags & KEYEVENT) != 0) {
      text.append('E');
    }
    if ((flags & KEY_MISS) != 0) {
      text.append('m');
    }
    return text.toString();
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
