package dev.cuckoo.cli;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.rdb.DumpPayload;
import dev.cuckoo.server.rdb.RdbFormatException;
import dev.cuckoo.server.rdb.RdbReader;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code cuckoo import-rdb}: reads a Redis RDB file (a {@code dump.rdb} of Redis 8 with RedisBloom)
 * and lists its cuckoo filters, or restores them into a running server with RESTORE.
 */
@Command(
    name = "import-rdb",
    mixinStandardHelpOptions = true,
    description = {
      "Read a Redis RDB file (dump.rdb, RDB versions 1 to 12: Redis 8 with RedisBloom) and list"
          + " its cuckoo filters with their database and expiry, or, with --to, restore them into"
          + " a running cuckoo-server (or Redis 8 with RedisBloom) with RESTORE, each in its"
          + " database with its expiry (ABSTTL).",
      "Keys of other types (strings, lists, hashes, other modules' values...) are read past and"
          + " counted by type; keys already expired are skipped, as Redis skips them loading an"
          + " RDB. The file's CRC64 is checked.",
      "A cuckoo-server also loads a dump.rdb left in its data directory at its first start."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  cuckoo import-rdb dump.rdb",
      "  cuckoo import-rdb dump.rdb --to 127.0.0.1:6380",
      "  cuckoo import-rdb dump.rdb --to 10.0.0.5:6379 --password secret --replace",
      "",
      "Exit codes: 0 read (and every filter restored), 2 unreadable file, unreachable server or"
          + " a filter the server refused."
    })
final class ImportRdbCommand implements Callable<Integer> {
  private static final int DATABASES_WITHOUT_SERVER = 16;

  @Spec private CommandSpec spec;

  @Parameters(index = "0", paramLabel = "RDB", description = "The RDB file, e.g. dump.rdb.")
  private Path rdb;

  @Option(
      names = "--to",
      paramLabel = "HOST:PORT",
      description = "Restore the filters into this server (without it: list them).")
  private String to;

  @Mixin private ServerOptions connection;

  @Option(
      names = "--replace",
      description = "Replace keys that exist on the server (RESTORE ... REPLACE).")
  private boolean replace;

  @Override
  public Integer call() {
    // the work is in a class of its own: this command's class must load without the server's
    // classes (cuckoo-spark runs the command line without cuckoo-server, and picocli loads every
    // command when it builds the command line)
    return new Importing().run();
  }

  /** Reads the RDB file and restores its filters (uses the server's RDB reader). */
  private final class Importing {
    Integer run() {
      HostPort server = to == null ? null : HostPort.parse(spec, "--to", to);
      connection.check(spec);
      PrintWriter out = spec.commandLine().getOut();
      RespClient client = null;
      try (InputStream in = new BufferedInputStream(Files.newInputStream(rdb), 1 << 16)) {
        int databases = DATABASES_WITHOUT_SERVER;
        if (server != null) {
          client = connection.connect(server);
          databases = databases(client);
        }
        Restorer restorer = new Restorer(client, out);
        RdbReader.Summary summary = new RdbReader(in, databases).read(restorer);
        out.printf(
            "read %s: RDB version %d, %s bytes, %s cuckoo filters%s; skipped %s keys of other"
                + " types%s%s%n",
            rdb,
            summary.version(),
            Text.count(summary.bytes()),
            Text.count(summary.filters()),
            client == null ? "" : ", " + Text.count(restorer.restored) + " restored to " + to,
            Text.count(summary.foreign().total()),
            summary.foreign().total() == 0 ? "" : " (" + summary.foreign() + ")",
            restorer.expired == 0 ? "" : ", " + Text.count(restorer.expired) + " expired filters");
        out.flush();
        return ExitCode.OK;
      } catch (RespClient.ErrorReply e) {
        throw new CliException(to + " answered: " + e.getMessage(), e);
      } catch (ConnectException | UnknownHostException | SocketTimeoutException e) {
        throw new CliException("cannot reach " + to + ": " + ErrorHandler.describe(e), e);
      } catch (RdbFormatException e) {
        throw new CliException(rdb + " is not a readable RDB file: " + e.getMessage(), e);
      } catch (IOException e) {
        if (client == null && server == null) {
          throw CliException.reading(rdb.toString(), e);
        }
        throw new CliException("importing " + rdb + " failed: " + ErrorHandler.describe(e), e);
      } finally {
        if (client != null) {
          try {
            client.close();
          } catch (IOException e) {
            // closing
          }
        }
      }
    }
  }

  /** The server's number of databases (CONFIG GET databases), 16 if it does not say. */
  private static int databases(RespClient client) throws IOException {
    Object reply = client.call("CONFIG", "GET", "databases");
    if (reply instanceof List<?> pair && pair.size() == 2 && pair.get(1) instanceof byte[] value) {
      return Integer.parseInt(new String(value, StandardCharsets.US_ASCII));
    }
    return DATABASES_WITHOUT_SERVER;
  }

  /** Lists each filter, or restores it on the server in its database. */
  private final class Restorer implements RdbReader.Sink {
    private final RespClient client;
    private final PrintWriter out;
    private final long now = System.currentTimeMillis();
    private int selected = -1;
    long restored;
    long expired;

    Restorer(RespClient client, PrintWriter out) {
      this.client = client;
      this.out = out;
    }

    @Override
    public void filter(int db, byte[] key, long expireAt, RedisCuckooFilter<byte[]> filter)
        throws IOException {
      String name = new String(key, StandardCharsets.UTF_8);
      if (expireAt != RdbReader.NO_EXPIRY && expireAt <= now) {
        expired++;
        return;
      }
      if (client == null) {
        out.printf(
            "db %d  %s  %s items, %s sub-filters, capacity %s, bucket size %d%s%n",
            db,
            name,
            Text.count(filter.size()),
            Text.count(filter.linkCount()),
            Text.count(filter.capacity()),
            filter.bucketSize(),
            expireAt == RdbReader.NO_EXPIRY ? "" : ", expires at " + expireAt + " ms");
        return;
      }
      if (db != selected) {
        client.call("SELECT", Integer.toString(db));
        selected = db;
      }
      byte[] ttl =
          Long.toString(expireAt == RdbReader.NO_EXPIRY ? 0 : expireAt)
              .getBytes(StandardCharsets.US_ASCII);
      byte[][] restore = {
        bytes("RESTORE"), key, ttl, DumpPayload.encode(filter), bytes("ABSTTL"), bytes("REPLACE")
      };
      try {
        client.call(replace ? restore : java.util.Arrays.copyOf(restore, restore.length - 1));
      } catch (RespClient.ErrorReply e) {
        throw new CliException(
            to
                + " refused key '"
                + name
                + "' of database "
                + db
                + ": "
                + e.getMessage()
                + (e.getMessage().startsWith("BUSYKEY") ? " (--replace replaces it)" : ""),
            e);
      }
      restored++;
    }

    private byte[] bytes(String text) {
      return text.getBytes(StandardCharsets.US_ASCII);
    }
  }
}
