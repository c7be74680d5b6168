package dev.cuckoo.server.persist;

import dev.cuckoo.server.protocol.Numbers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The writes of one transaction (EXEC), gathered while it runs and logged as one record, so that
 * recovery applies all of them or none.
 *
 * <p>The record's arguments are {@code MULTI} followed, per write, by its database index, its
 * argument count and its arguments, the numbers in decimal ASCII. {@code MULTI} is never logged as
 * a command of its own, so the first argument tells a transaction record apart.
 */
public final class Transaction {
  /** The first argument of a transaction record. */
  static final byte[] MARKER = {'M', 'U', 'L', 'T', 'I'};

  /**
   * One write of a transaction: the database it ran in and its arguments; or a message published
   * inside it, which replicas get in its place but the log never holds.
   */
  public static final class Write {
    public final int db;
    public final byte[][] args;

    /** True for a PUBLISH or SPUBLISH: streamed to replicas in order, never logged. */
    public final boolean message;

    /** A write run in database {@code db}. */
    public Write(int db, byte[][] args) {
      this(db, args, false);
    }

    private Write(int db, byte[][] args, boolean message) {
      this.db = db;
      this.args = args;
      this.message = message;
    }
  }

  // most are one command's creation and change, which logs one write: no room for ten
  private final List<Write> writes = new ArrayList<>(2);
  private final int commands;
  private int messages;

  /** Starts gathering the writes of a transaction of {@code commands} queued commands. */
  public Transaction(int commands) {
    this.commands = commands;
  }

  /**
   * Starts gathering the writes of one command that are logged as one record (a CF write creating
   * its key): not a MULTI, so {@link #commands} is -1 and CLIENT LIST shows no transaction.
   */
  public Transaction() {
    this(-1);
  }

  /**
   * Returns the number of commands the transaction runs (CLIENT LIST's multi= meanwhile), or -1 for
   * the record of one command.
   */
  public int commands() {
    return commands;
  }

  /** Adds a write made inside the transaction. */
  public void add(int db, byte[][] args) {
    writes.add(new Write(db, args));
  }

  /**
   * Adds a message published inside the transaction (PUBLISH, SPUBLISH): replicas get it in its
   * place among the writes, inside the transaction's MULTI … EXEC, as Redis propagates it; the log
   * does not hold it.
   */
  public void addMessage(int db, byte[][] args) {
    writes.add(new Write(db, args, true));
    messages++;
  }

  /** Returns the writes (and messages, see {@link #addMessage}) in the order they were made. */
  public List<Write> writes() {
    return writes;
  }

  /** Returns true if a message was published inside the transaction. */
  public boolean hasMessages() {
    return messages > 0;
  }

  /** Returns the writes the log holds: every one but the messages. */
  public List<Write> loggedWrites() {
    if (messages == 0) {
      return writes;
    }
    List<Write> logged = new ArrayList<>(writes.size() - messages);
    for (Write write : writes) {
      if (!write.message) {
        logged.add(write);
      }
    }
    return logged;
  }

  /** Returns true if the logged arguments are a transaction record. */
  public static boolean isRecord(byte[][] args) {
    return args.length > 0 && java.util.Arrays.equals(args[0], MARKER);
  }

  /** Encodes the writes as one record's arguments (not the messages: see {@link #addMessage}). */
  public byte[][] encode() {
    List<Write> logged = loggedWrites();
    int count = 1;
    for (Write write : logged) {
      count += 2 + write.args.length;
    }
    byte[][] args = new byte[count][];
    args[0] = MARKER;
    int at = 1;
    for (Write write : logged) {
      args[at++] = ascii(write.db);
      args[at++] = ascii(write.args.length);
      for (byte[] arg : write.args) {
        args[at++] = arg;
      }
    }
    return args;
  }

  /**
   * Decodes a transaction record's arguments.
   *
   * @throws IllegalArgumentException if they are not a well-formed transaction record
   */
  public static List<Write> decode(byte[][] args) {
    List<Write> writes = new ArrayList<>();
    int at = 1;
    while (at < args.length) {
      if (at + 2 > args.length) {
        throw new IllegalArgumentException("transaction record cut after argument " + at);
      }
      Long db = Numbers.parseLong(args[at]);
      Long argc = Numbers.parseLong(args[at + 1]);
      if (db == null
          || db < 0
          || db > Integer.MAX_VALUE
          || argc == null
          || argc < 1
          || argc > args.length - at - 2) {
        throw new IllegalArgumentException("malformed transaction record at argument " + at);
      }
      byte[][] command = new byte[(int) (long) argc][];
      System.arraycopy(args, at + 2, command, 0, command.length);
      writes.add(new Write((int) (long) db, command));
      at += 2 + command.length;
    }
    return writes;
  }

  private static byte[] ascii(long value) {
    return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
  }
}
