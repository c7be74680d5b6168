package dev.cuckoo.server.migrate;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The source's side of a MIGRATE exchange, as Redis's {@code migrateCommand} runs it once the keys
 * are serialized: takes the target's cached connection (or connects), sends AUTH if asked, SELECT
 * when the connection has another database selected, and every key's RESTORE in one pipelined write
 * (in 64 KiB pieces, each within the timeout), then reads one reply line per command.
 *
 * <p>Outcomes as Redis's: a host that does not resolve answers {@link #CONNECT_ERROR}; a failed
 * write {@code IOERR error or timeout writing to target instance}, a failed read {@code ... reading
 * ...}; an error line of the target's (AUTH's, SELECT's or the first RESTORE's to fail) {@code ERR
 * Target instance replied with error: <its text>}. A socket error that is not a timeout, before any
 * RESTORE was answered, drops the connection and tries once more on a new one (a cached connection
 * the target closed). The keys whose RESTORE the target acknowledged are reported whatever the
 * outcome: a source without COPY deletes those and only those.
 */
public final class Transfer {
  /** Redis's reply when no socket can be made for the target's address. */
  public static final String CONNECT_ERROR = "IOERR error or timeout connecting to the client";

  private static final String TARGET_ERROR = "ERR Target instance replied with error: ";
  private static final int CHUNK = 64 * 1024;
  private static final byte[] CRLF = {'\r', '\n'};

  private Transfer() {}

  /**
   * What to send.
   *
   * @param host the target's host, as the command named it
   * @param port the target's port, as the command named it
   * @param db the database to restore into
   * @param timeoutMillis the time each connect, write and reply line may take
   * @param user the user of AUTH2, or null
   * @param password the password of AUTH or AUTH2, or null to send no AUTH
   * @param restores one encoded RESTORE (or RESTORE-ASKING) command per key, see {@link #restore}
   */
  public record Batch(
      String host,
      String port,
      long db,
      long timeoutMillis,
      byte[] user,
      byte[] password,
      List<byte[]> restores) {}

  /**
   * How it went.
   *
   * @param restored per key of the batch, true if the target acknowledged its RESTORE
   * @param error the error to answer (without the dash), or null for OK
   */
  public record Outcome(boolean[] restored, String error) {}

  /**
   * Encodes one key's RESTORE as MIGRATE sends it: {@code RESTORE} (or {@code RESTORE-ASKING} in a
   * cluster) key ttl payload, then {@code REPLACE} if asked.
   */
  public static byte[] restore(
      boolean asking, byte[] key, long ttlMillis, byte[] payload, boolean replace) {
    byte[] name = (asking ? "RESTORE-ASKING" : "RESTORE").getBytes(StandardCharsets.US_ASCII);
    byte[] ttl = Long.toString(ttlMillis).getBytes(StandardCharsets.US_ASCII);
    return replace
        ? command(name, key, ttl, payload, "REPLACE".getBytes(StandardCharsets.US_ASCII))
        : command(name, key, ttl, payload);
  }

  /** Encodes a command as a RESP array of bulk strings. */
  static byte[] command(byte[]... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    header(out, '*', args.length);
    for (byte[] arg : args) {
      header(out, '$', arg.length);
      out.writeBytes(arg);
      out.writeBytes(CRLF);
    }
    return out.toByteArray();
  }

  private static void header(ByteArrayOutputStream out, char kind, long count) {
    out.write(kind);
    out.writeBytes(Long.toString(count).getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(CRLF);
  }

  /** Runs the exchange on {@code sockets}' connections; never throws for the target's faults. */
  public static Outcome run(TargetSockets sockets, Batch batch) {
    int keys = batch.restores().size();
    boolean mayRetry = true;
    while (true) {
      TargetConnection connection;
      try {
        connection = sockets.take(batch.host(), batch.port(), batch.timeoutMillis());
      } catch (IOException | RuntimeException e) {
        return new Outcome(new boolean[keys], CONNECT_ERROR);
      }
      boolean select = connection.lastDb() != batch.db();
      Attempt attempt = new Attempt(connection, batch, select);
      Outcome outcome = attempt.run();
      if (outcome != null) {
        if (attempt.socketError) {
          sockets.drop(connection);
        } else {
          sockets.giveBack(batch.host(), batch.port(), connection);
        }
        return outcome;
      }
      sockets.drop(connection);
      if (!attempt.timedOut && mayRetry) {
        mayRetry = false;
        continue;
      }
      return new Outcome(
          new boolean[keys],
          "IOERR error or timeout "
              + (attempt.writeError ? "writing" : "reading")
              + " to target instance");
    }
  }

  /** One try on one connection. */
  private static final class Attempt {
    private final TargetConnection connection;
    private final Batch batch;
    private final boolean select;
    private final long timeout;
    boolean writeError;
    boolean socketError;
    boolean timedOut;

    Attempt(TargetConnection connection, Batch batch, boolean select) {
      this.connection = connection;
      this.batch = batch;
      this.select = select;
      this.timeout = batch.timeoutMillis();
    }

    /**
     * Returns the outcome, or null for a socket error to retry or answer as IOERR (the connection
     * is then dropped).
     */
    Outcome run() {
      try {
        send();
      } catch (IOException e) {
        writeError = true;
        timedOut = e instanceof SocketTimeoutException;
        return null;
      }
      String authReply = null;
      String selectReply = null;
      try {
        if (batch.password() != null) {
          authReply = connection.readLine(timeout);
        }
        if (select) {
          selectReply = connection.readLine(timeout);
        }
      } catch (IOException e) {
        timedOut = e instanceof SocketTimeoutException;
        return null;
      }
      int keys = batch.restores().size();
      boolean[] restored = new boolean[keys];
      String error = null;
      int answered = 0;
      for (; answered < keys; answered++) {
        String line;
        try {
          line = connection.readLine(timeout);
        } catch (IOException e) {
          socketError = true;
          timedOut = e instanceof SocketTimeoutException;
          break;
        }
        String failed =
            isError(authReply)
                ? authReply
                : isError(selectReply) ? selectReply : isError(line) ? line : null;
        if (failed == null) {
          restored[answered] = true;
        } else if (error == null) {
          // after an error the target's selected database is not known
          connection.lastDb(-1);
          error = TARGET_ERROR + failed.substring(1);
        }
      }
      if (error == null && socketError) {
        if (answered == 0) {
          // nothing was restored: retried (unless timed out) or answered as IOERR
          return null;
        }
        return new Outcome(restored, "IOERR error or timeout reading to target instance");
      }
      if (error == null) {
        connection.lastDb(batch.db());
      }
      return new Outcome(restored, error);
    }

    private static boolean isError(String line) {
      return line != null && line.startsWith("-");
    }

    /** Writes AUTH, SELECT and the RESTOREs in pieces of 64 KiB, each within the timeout. */
    private void send() throws IOException {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      if (batch.password() != null) {
        byte[] auth = "AUTH".getBytes(StandardCharsets.US_ASCII);
        head.writeBytes(
            batch.user() != null
                ? command(auth, batch.user(), batch.password())
                : command(auth, batch.password()));
      }
      if (select) {
        head.writeBytes(
            command(
                "SELECT".getBytes(StandardCharsets.US_ASCII),
                Long.toString(batch.db()).getBytes(StandardCharsets.US_ASCII)));
      }
      if (head.size() > 0) {
        write(head.toByteArray());
      }
      for (byte[] restore : batch.restores()) {
        write(restore);
      }
    }

    private void write(byte[] bytes) throws IOException {
      for (int offset = 0; offset < bytes.length; offset += CHUNK) {
        connection.write(bytes, offset, Math.min(CHUNK, bytes.length - offset), timeout);
      }
    }
  }
}
