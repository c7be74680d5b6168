package dev.cuckoo.cli;

import dev.cuckoo.FilterFile;
import dev.cuckoo.MembershipFilter;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code cuckoo import}: reads a filter from a running server with CF.SCANDUMP into a file. */
@Command(
    name = "import",
    mixinStandardHelpOptions = true,
    description = {
      "Read a cuckoo filter from a running Redis 8 or cuckoo-server with CF.SCANDUMP and write"
          + " it as a filter file (REDISBLOOM scheme), for 'query', 'info', 'export' or the"
          + " library.",
      "A key with one sub-filter becomes a single-filter file (a RedisCuckooFilter of one"
          + " link to the library, hasher redisUtf8); a key that grew into several sub-filters"
          + " becomes a chain file (RedisCuckooFilter, hasher redisBytes, docs/FORMAT.md"
          + " \"Chained filters\")."
          + " RedisBloom returns nothing for an empty filter, so an empty key cannot be"
          + " imported."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  cuckoo import --key seen --from 127.0.0.1:6379 --output seen.cuckoo",
      "  cuckoo import --key seen --from localhost:6380 --password secret -o seen.cuckoo",
      "",
      "Exit codes: 0 written, 2 usage error, unreachable server or unusable key."
    })
final class ImportCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Option(names = "--key", required = true, paramLabel = "NAME", description = "The key.")
  private String key;

  @Option(
      names = "--from",
      required = true,
      paramLabel = "HOST:PORT",
      description = "The server, e.g. 127.0.0.1:6379.")
  private String from;

  @Option(
      names = {"--output", "-o"},
      required = true,
      paramLabel = "FILE",
      description = "The filter file to write (replaced if it exists).")
  private Path output;

  @Mixin private ServerOptions connection;

  @Override
  public Integer call() {
    HostPort server = HostPort.parse(spec, "--from", from);
    connection.check(spec);
    byte[] image;
    long chunks = 0;
    long links = 0;
    try (RespClient client = connection.connect(server)) {
      DumpAssembly dump = null;
      long iterator = 0;
      while (true) {
        Object reply = client.call("CF.SCANDUMP", key, Long.toString(iterator));
        if (!(reply instanceof List) || ((List<?>) reply).size() != 2) {
          throw new CliException("unexpected CF.SCANDUMP reply: " + RespClient.describe(reply));
        }
        List<?> pair = (List<?>) reply;
        if (!(pair.get(0) instanceof Long)) {
          throw new CliException(
              "unexpected CF.SCANDUMP iterator: " + RespClient.describe(pair.get(0)));
        }
        long next = (Long) pair.get(0);
        if (next == 0) {
          break;
        }
        if (next <= iterator || !(pair.get(1) instanceof byte[])) {
          throw new CliException(
              "unexpected CF.SCANDUMP reply at iterator " + iterator + ": next " + next);
        }
        byte[] data = (byte[]) pair.get(1);
        if (dump == null) {
          dump = DumpAssembly.fromHeader(data, key);
          links = dump.links();
        } else {
          dump.load(next, data, key);
          chunks++;
        }
        iterator = next;
      }
      if (dump == null) {
        throw new CliException(
            "key '" + key + "' is empty: CF.SCANDUMP returns nothing for a filter without items");
      }
      image = dump.finish(key);
    } catch (RespClient.ErrorReply e) {
      throw new CliException(
          from
              + " answered: "
              + e.getMessage()
              + (e.getMessage().contains("not found") ? " (key '" + key + "')" : ""),
          e);
    } catch (ConnectException | UnknownHostException | SocketTimeoutException e) {
      throw new CliException("cannot reach " + from + ": " + ErrorHandler.describe(e), e);
    } catch (IOException e) {
      throw new CliException("talking to " + from + " failed: " + ErrorHandler.describe(e), e);
    }
    long fileBytes = AtomicFile.write(output, out -> out.write(image));
    FilterFile<byte[]> written = FilterFiles.readFile(output);
    MembershipFilter<byte[]> filter = written.filter();
    PrintWriter out = spec.commandLine().getOut();
    out.printf(
        "wrote %s: key '%s' from %s, %s%s items, %s data chunks, load %s, file %s%n",
        output,
        key,
        from,
        links > 1 ? Text.count(links) + " sub-filters, " : "",
        Text.count(filter.size()),
        Text.count(chunks),
        Text.percent(FilterSummary.loadFactor(filter, written.isChain())),
        Text.bytes(fileBytes));
    out.flush();
    return ExitCode.OK;
  }
}
