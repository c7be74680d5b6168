package dev.cuckoo.server.config;

/**
 * Redis's keyspace notification classes, the value of {@code notify-keyspace-events}: flag
 * characters read as Redis's keyspaceEventsStringToFlags reads them and written as its
 * keyspaceEventsFlagsToString writes them ({@code "KEA"} reads back as {@code "AKE"}).
 */
public final class EventClasses {
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

  /** Redis's text for a character that is not a flag. */
  public static final String INVALID = "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";

  // the class flags in the order keyspaceEventsFlagsToString writes them; A: all but n and m
  private static final String CLASSES = "g$lshzxetdn";
  private static final int[] CLASS_BITS = {
    GENERIC, 1 << 3, 1 << 4, 1 << 5, 1 << 6, 1 << 7, EXPIRED, EVICTED, 1 << 10, MODULE, NEW
  };
  private static final int ALL =
      GENERIC | 1 << 3 | 1 << 4 | 1 << 5 | 1 << 6 | 1 << 7 | EXPIRED | EVICTED | 1 << 10 | MODULE;

  /** The parameter's type: the flags, kept in the form CONFIG GET shows. */
  static final ValueType<String> TYPE =
      new ValueType<>() {
        @Override
        public String parse(String text) {
          int flags = EventClasses.parse(text);
          if (flags < 0) {
            throw ValueType.invalid(INVALID);
          }
          return EventClasses.format(flags);
        }

        @Override
        public String format(String value) {
          return value;
        }
      };

  private EventClasses() {}

  /**
   * Reads flag characters ({@code "KEA"}, {@code "Ex"}, {@code ""} for none).
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

  /**
   * Writes flags as Redis shows them: the classes (or A, then n if set: Redis drops n after A,
   * which would lose it at CONFIG REWRITE), then K, E and m.
   */
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
}
