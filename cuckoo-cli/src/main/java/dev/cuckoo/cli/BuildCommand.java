package dev.cuckoo.cli;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.Scheme;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code cuckoo build}: reads items, one per line, and writes a filter file. */
@Command(
    name = "build",
    mixinStandardHelpOptions = true,
    description = {
      "Build a filter from items, one per line (UTF-8 text, or hex/Base64 bytes), and write it"
          + " to a file. Empty lines are skipped. An item the filter says might already be"
          + " present (a duplicate, or rarely a false positive) is not stored again unless"
          + " --keep-duplicates is given; give it if items will be deleted later (e.g. with"
          + " CF.DEL after an export to Redis).",
      "Without --expected, a file is read twice: once to count its lines. With --scheme"
          + " redisbloom, --expected is CF.RESERVE's capacity; without it the filter is sized"
          + " for twice the line count, since RedisBloom's short kick chains fill only part of a"
          + " table."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  cuckoo build --input urls.txt --output urls.cuckoo",
      "  cuckoo build --input urls.txt --output urls.cuckoo --fpp 0.0001",
      "  zcat ids.gz | cuckoo build --input - --expected 5000000 --output ids.cuckoo",
      "  cuckoo build --input keys.hex --format hex --output keys.cuckoo --bucket-size 8",
      "  cuckoo build --input words.txt --scheme redisbloom --output words.cuckoo",
      "",
      "Exit codes: 0 written, 2 usage or input error (then no file is written)."
    })
final class BuildCommand implements Callable<Integer> {
  private static final int MAX_FINGERPRINT_BITS = 32;
  private static final int MIN_FINGERPRINT_BITS = 4;
  // built-in hasher ids: text lines are recorded as utf8/redisUtf8, so that the library reads the
  // file with ItemHashers.utf8() or redisUtf8(); hex and Base64 items as bytes/redisBytes
  private static final int REDISBLOOM_HEADROOM = 2;
  private static final int ID_UTF8 = 1;
  private static final int ID_BYTES = 2;
  private static final int ID_REDIS_UTF8 = 5;
  private static final int ID_REDIS_BYTES = 6;

  @Spec private CommandSpec spec;
  @ParentCommand private CuckooCli cli;

  @Option(
      names = "--input",
      required = true,
      paramLabel = "FILE|-",
      description = "Items, one per line; '-' reads standard input.")
  private String input;

  @Option(
      names = "--output",
      required = true,
      paramLabel = "FILE",
      description = "The filter file to write (replaced if it exists).")
  private Path output;

  @ArgGroup(exclusive = true)
  private Rate rate = new Rate();

  /** The two ways to set the fingerprint width. */
  static final class Rate {
    @Option(
        names = "--fpp",
        paramLabel = "RATE",
        description = "Target false-positive rate at --expected items (default 0.001; STANDARD).")
    Double fpp;

    @Option(
        names = "--fingerprint-bits",
        paramLabel = "N",
        description = "Fingerprint width instead of --fpp: 4 to 32 (STANDARD).")
    Integer fingerprintBits;
  }

  @Option(
      names = "--bucket-size",
      paramLabel = "N",
      description = "Slots per bucket: 2, 4 or 8 (default 4); REDISBLOOM 1 to 255 (default 2).")
  private Integer bucketSize;

  @Option(
      names = "--expected",
      paramLabel = "N",
      description = "Number of items to size for (default: the input file's line count).")
  private Long expected;

  @Option(
      names = "--scheme",
      defaultValue = "standard",
      paramLabel = "SCHEME",
      description =
          "standard (XXH3, any size) or redisbloom (bit-exact with Redis CF.*, 8-bit"
              + " fingerprints); default ${DEFAULT-VALUE}.")
  private SchemeOption scheme;

  @Option(
      names = "--format",
      defaultValue = "lines",
      paramLabel = "FORMAT",
      description = "How a line encodes an item: lines, hex or base64 (default ${DEFAULT-VALUE}).")
  private ItemFormat format;

  @Option(
      names = "--max-kicks",
      paramLabel = "N",
      description = "Relocations per insert before giving up (default 500; REDISBLOOM 20).")
  private Integer maxKicks;

  @Option(
      names = "--seed",
      paramLabel = "N",
      description = "Seed mixed into every hash (STANDARD only; default 0).")
  private Long seed;

  @Option(
      names = "--keep-duplicates",
      description = "Store every line, even one that might already be present.")
  private boolean keepDuplicates;

  /** The values of {@code --scheme}. */
  enum SchemeOption {
    STANDARD,
    REDISBLOOM
  }

  @Override
  public Integer call() {
    validate();
    long size = expected != null ? expected : countLines();
    if (expected == null && scheme == SchemeOption.REDISBLOOM) {
      // RedisBloom inserts (20 kicks by default) fill a table only partly: leave room, as Redis
      // users do with CF.RESERVE
      size = Math.multiplyExact(size, REDISBLOOM_HEADROOM);
    }
    CliFilter filter;
    try {
      filter = newFilter(Math.max(1, size));
    } catch (OutOfMemoryError e) {
      // the table is one failed allocation: nothing else is half-built
      throw new CliException(
          "a filter for "
              + Text.count(size)
              + " items needs more memory than this JVM's heap ("
              + Text.bytes(Runtime.getRuntime().maxMemory())
              + "); raise it with CUCKOO_JAVA_OPTS=-Xmx..., or lower --expected",
          e);
    }
    PrintWriter out = spec.commandLine().getOut();
    long start = System.nanoTime();
    long read = 0;
    long skipped = 0;
    long failed = 0;
    long fullAt = 0;
    long total = expected == null && ItemInput.isStdin(input) ? -1 : size;
    Progress progress = Progress.onConsole(spec.commandLine().getErr(), "building", total);
    try (ItemInput items = ItemInput.open(input, cli.stdin(), format)) {
      for (byte[] item = items.next(); item != null; item = items.next()) {
        read++;
        if (failed > 0) {
          // full: the build has failed; only count what else would have needed a slot
          if (keepDuplicates || !filter.mightContain(item)) {
            failed++;
          }
          continue;
        }
        CliFilter.AddOutcome outcome = filter.add(item, !keepDuplicates);
        if (outcome == CliFilter.AddOutcome.PRESENT) {
          skipped++;
        } else if (outcome == CliFilter.AddOutcome.FULL) {
          failed++;
          fullAt = read;
        }
        progress.update(read);
      }
    } finally {
      progress.finish();
    }
    if (failed > 0) {
      throw new CliException(fullMessage(filter, read, failed, fullAt));
    }
    long fileBytes = FilterFile.write(filter, output);
    long nanos = System.nanoTime() - start;
    out.printf(
        "wrote %s: %s items from %s lines (%s not stored: might already be present) in %s%n",
        output,
        Text.count(filter.size()),
        Text.count(read),
        Text.count(skipped),
        Text.seconds(nanos));
    out.printf(
        "  load %s of capacity %s, %s bits/item, expected false-positive rate %s, file %s%n",
        Text.percent(filter.loadFactor()),
        Text.count(filter.capacity()),
        Text.decimal(filter.bitsPerStoredItem(), 2),
        Text.percent(filter.expectedFalsePositiveRate()),
        Text.bytes(fileBytes));
    out.flush();
    return ExitCode.OK;
  }

  private String fullMessage(CliFilter filter, long read, long failed, long fullAt) {
    long suggestion = (long) Math.ceil(read * 1.1);
    return "the filter is full: item "
        + Text.count(fullAt)
        + " did not fit at "
        + Text.percent(filter.loadFactor())
        + " load (capacity "
        + Text.count(filter.capacity())
        + "), and "
        + Text.count(failed)
        + " of "
        + Text.count(read)
        + " items had no room; use --expected "
        + suggestion
        + " or more. Nothing was written.";
  }

  private long countLines() {
    if (ItemInput.isStdin(input)) {
      throw new ParameterException(
          spec.commandLine(), "--expected is required when the input is standard input");
    }
    return ItemInput.countItems(input);
  }

  private void validate() {
    boolean redis = scheme == SchemeOption.REDISBLOOM;
    if (rate.fpp != null && !(rate.fpp > 0 && rate.fpp < 1)) {
      fail("--fpp: " + rate.fpp + " (expected: 0 < fpp < 1)");
    }
    if (rate.fingerprintBits != null
        && (rate.fingerprintBits < MIN_FINGERPRINT_BITS
            || rate.fingerprintBits > MAX_FINGERPRINT_BITS)) {
      fail(
          "--fingerprint-bits: "
              + rate.fingerprintBits
              + " (expected: "
              + MIN_FINGERPRINT_BITS
              + " to "
              + MAX_FINGERPRINT_BITS
              + ")");
    }
    if (redis && (rate.fpp != null || rate.fingerprintBits != null)) {
      fail(
          (rate.fpp != null ? "--fpp" : "--fingerprint-bits")
              + " does not apply to --scheme redisbloom (8-bit fingerprints, as in Redis)");
    }
    if (redis && seed != null) {
      fail("--seed does not apply to --scheme redisbloom (RedisBloom hashes have no seed)");
    }
    if (bucketSize != null) {
      if (redis
          ? bucketSize < 1 || bucketSize > 255
          : bucketSize != 2 && bucketSize != 4 && bucketSize != 8) {
        fail(
            "--bucket-size: "
                + bucketSize
                + (redis ? " (expected: 1 to 255 for redisbloom)" : " (expected: 2, 4 or 8)"));
      }
    }
    if (expected != null && expected < 1) {
      fail("--expected: " + expected + " (expected: at least 1)");
    }
    if (maxKicks != null && (maxKicks < 0 || maxKicks > CuckooFilter.MAX_KICKS_LIMIT)) {
      fail("--max-kicks: " + maxKicks + " (expected: 0 to " + CuckooFilter.MAX_KICKS_LIMIT + ")");
    }
  }

  private void fail(String message) {
    throw new ParameterException(spec.commandLine(), message);
  }

  private CliFilter newFilter(long size) {
    if (scheme == SchemeOption.REDISBLOOM) {
      int id = format == ItemFormat.LINES ? ID_REDIS_UTF8 : ID_REDIS_BYTES;
      CompatibleHasher hasher = CompatibleHasher.forId(id, output.toString());
      CuckooFilter.Builder<byte[]> builder =
          CuckooFilter.builder(hasher).scheme(Scheme.REDISBLOOM).expectedItems(size);
      if (bucketSize != null) {
        builder.bucketSize(bucketSize);
      }
      if (maxKicks != null) {
        builder.maxKicks(maxKicks);
      }
      return new SingleFilter(builder.build(), hasher.describe());
    }
    int id = format == ItemFormat.LINES ? ID_UTF8 : ID_BYTES;
    CompatibleHasher hasher = CompatibleHasher.forId(id, output.toString());
    CuckooFilter.Builder<byte[]> builder = CuckooFilter.builder(hasher).expectedItems(size);
    if (rate.fingerprintBits != null) {
      builder.fingerprintBits(rate.fingerprintBits);
    } else {
      builder.falsePositiveRate(rate.fpp != null ? rate.fpp : 0.001);
    }
    builder.bucketSize(bucketSize != null ? bucketSize : 4);
    if (maxKicks != null) {
      builder.maxKicks(maxKicks);
    }
    if (seed != null) {
      builder.seed(seed);
    }
    return new SingleFilter(builder.build(), hasher.describe());
  }
}
