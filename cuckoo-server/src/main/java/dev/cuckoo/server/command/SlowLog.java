package dev.cuckoo.server.command;

import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;

/**
 * The slow log (SLOWLOG GET, LEN, RESET), kept as Redis's slowlog.c keeps it: every command that
 * ran at least {@code slowlog-log-slower-than} microseconds (default 10,000; 0 logs every command,
 * a negative value none) is added in front, and the oldest entries leave beyond {@code
 * slowlog-max-len} (default 128). An entry holds an id (counting from 0, never reset), the Unix
 * time in seconds, the duration in microseconds, the arguments (at most 32, the last of them then
 * saying how many more there were; each at most 128 bytes, followed by how many more there were),
 * the client's address and its name. Passwords are shown as {@code (redacted)}: AUTH's arguments,
 * HELLO's AUTH pair, and the values of requirepass and masterauth in CONFIG SET. EXEC is not logged
 * (the commands it ran are, one by one), nor is log replay.
 *
 * <p>Commands of every connection add entries: the log is guarded by its own monitor, taken only
 * for a command slower than the threshold or by SLOWLOG itself.
 */
final class SlowLog {
  /** The most arguments an entry keeps (Redis's SLOWLOG_ENTRY_MAX_ARGC). */
  static final int MAX_ARGS = 32;

  /** The most bytes an argument keeps (Redis's SLOWLOG_ENTRY_MAX_STRING). */
  static final int MAX_BYTES = 128;

  private static final byte[] REDACTED = "(redacted)".getBytes(StandardCharsets.US_ASCII);

  /**
   * One logged command.
   *
   * @param id its number, from 0
   * @param unixSeconds when it was logged
   * @param micros how long it ran
   * @param args its arguments, shortened and redacted
   * @param addr the client's address (ip:port)
   * @param name the client's name, empty if none
   */
  record Entry(long id, long unixSeconds, long micros, byte[][] args, String addr, String name) {}

  private final ArrayDeque<Entry> entries = new ArrayDeque<>();
  private long nextId;

  /**
   * Adds a command that ran {@code micros} microseconds, then drops the oldest entries beyond
   * {@code maxLength}.
   */
  synchronized void add(long micros, byte[][] args, String addr, String name, long maxLength) {
    entries.addFirst(
        new Entry(nextId++, System.currentTimeMillis() / 1000, micros, logged(args), addr, name));
    trim(maxLength);
  }

  /** Drops the oldest entries beyond {@code maxLength} (also when slowlog-max-len is lowered). */
  synchronized void trim(long maxLength) {
    while (entries.size() > maxLength) {
      entries.removeLast();
    }
  }

  /** Returns the number of entries (SLOWLOG LEN). */
  synchronized int size() {
    return entries.size();
  }

  /** Removes every entry (SLOWLOG RESET); ids go on from where they were. */
  synchronized void reset() {
    entries.clear();
  }

  /** Returns the newest {@code count} entries, newest first ({@code count} -1: all). */
  synchronized Entry[] newest(long count) {
    int n = count < 0 || count > entries.size() ? entries.size() : (int) count;
    Entry[] newest = new Entry[n];
    Iterator<Entry> walk = entries.iterator();
    for (int i = 0; i < n; i++) {
      newest[i] = walk.next();
    }
    return newest;
  }

  /** Writes entries as SLOWLOG GET answers them. */
  static void reply(Reply reply, Entry[] entries) {
    reply.array(entries.length);
    for (Entry entry : entries) {
      reply.array(6);
      reply.integer(entry.id());
      reply.integer(entry.unixSeconds());
      reply.integer(entry.micros());
      reply.array(entry.args().length);
      for (byte[] arg : entry.args()) {
        reply.bulk(arg);
      }
      reply.bulk(entry.addr());
      reply.bulk(entry.name());
    }
  }

  /** Returns the arguments as an entry keeps them: redacted, at most 32, each at most 128 bytes. */
  static byte[][] logged(byte[][] args) {
    byte[][] redacted = redact(args);
    int kept = Math.min(redacted.length, MAX_ARGS);
    byte[][] logged = new byte[kept][];
    for (int i = 0; i < kept; i++) {
      if (kept != redacted.length && i == kept - 1) {
        logged[i] = ascii("... (" + (redacted.length - kept + 1) + " more arguments)");
      } else if (redacted[i].length > MAX_BYTES) {
        byte[] more = ascii("... (" + (redacted[i].length - MAX_BYTES) + " more bytes)");
        logged[i] = Arrays.copyOf(redacted[i], MAX_BYTES + more.length);
        System.arraycopy(more, 0, logged[i], MAX_BYTES, more.length);
      } else {
        logged[i] = redacted[i];
      }
    }
    return logged;
  }

  /** Returns the arguments with passwords replaced by {@code (redacted)} (a copy if any is). */
  static byte[][] redact(byte[][] args) {
    String command = Args.lower(args[0]);
    byte[][] copy = args.clone();
    switch (command) {
      case "auth":
        for (int i = 1; i < copy.length; i++) {
          copy[i] = REDACTED;
        }
        break;
      case "hello":
        for (int i = 2; i + 2 < copy.length; i++) {
          String option = Args.lower(copy[i]);
          if (option.equals("auth")) {
            copy[i + 1] = REDACTED;
            copy[i + 2] = REDACTED;
            i += 2;
          } else if (option.equals("setname")) {
            i++;
          }
        }
        break;
      case "migrate":
        for (int i = 6; i < copy.length; i++) {
          String option = Args.lower(copy[i]);
          if (option.equals("keys")) {
            break;
          }
          if (option.equals("auth") && i + 1 < copy.length) {
            copy[++i] = REDACTED;
          } else if (option.equals("auth2") && i + 2 < copy.length) {
            copy[++i] = REDACTED;
            copy[++i] = REDACTED;
          }
        }
        break;
      case "acl":
        // as Redis's aclCommand: every argument of SETUSER and DELUSER, GETUSER's user name
        if (copy.length > 2) {
          String sub = Args.lower(copy[1]);
          if (sub.equals("setuser") || sub.equals("deluser") || sub.equals("getuser")) {
            for (int i = 2; i < copy.length; i++) {
              copy[i] = REDACTED;
            }
          }
        }
        break;
      case "config":
        if (copy.length > 1 && Args.lower(copy[1]).equals("set")) {
          for (int i = 2; i + 1 < copy.length; i += 2) {
            String name = Args.lower(copy[i]);
            if (name.equals("requirepass") || name.equals("masterauth")) {
              copy[i + 1] = REDACTED;
            }
          }
        }
        break;
      default:
        break;
    }
    return copy;
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }
}
