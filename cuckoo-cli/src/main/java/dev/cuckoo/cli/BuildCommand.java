package dev.cuckoo.cli;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.FilterAllocationException;
import dev.cuckoo.ScalableCuckooFilter;
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
          + " to a file. Empty lines are skipped.",
      "Duplicates: with --scheme standard (the default), an item the filter says might already"
          + " be present (a duplicate, or rarely a false positive) is not stored again unless"
          + " --keep-duplicates is given; give it if items will be deleted later. With --scheme"
          + " redisbloom every line is stored, as CF.ADD and CF.INSERT do, so that a later CF.DEL"
          + " of an item whose near-duplicate was skipped cannot become a false negative;"
          + " --skip-duplicates stores an item only if absent, as CF.ADDNX.",
      "Without --expected, a file is read twice: once to count its lines. With --scheme"
          + " redisbloom, --expected is CF.RESERVE's capacity; without it the filter is sized"
          + " for twice the line count, since RedisBloom's short kick chains fill only part of a"
          + " table.",
      "--scalable builds a growing filter (ScalableCuckooFilter, written in the chain format):"
          + " --expected (default: the line count; 1024 for standard input) sizes its first"
          + " link, and a new, larger link is added whenever the newest is full, so the build"
          + " never fails for want of room. standard: each link is --growth-factor times larger"
          + " and gets wider fingerprints, so the whole chain stays within --fpp. redisbloom:"
          + " the RedisBloom chain CF.RESERVE ... EXPANSION --expansion makes (bit-exact; the"
          + " expansion is rounded up to a power of two, as Redis does); its file records the"
          + " hasher redisBytes, so the library reads it with ItemHashers.redisBytes() and"
          + " queries text as its UTF-8 bytes."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  cuckoo build --input urls.txt --output urls.cuckoo",
      "  cuckoo build --input urls.txt --output urls.cuckoo --fpp 0.0001",
      "  zcat ids.gz | cuckoo build --input - --expected 5000000 --output ids.cuckoo",
      "  cuckoo build --input keys.hex --format hex --output keys.cuckoo --bucket-size 8",
      "  cuckoo build --input words.txt --scheme redisbloom --output words.cuckoo",
      "  zcat ids.gz | cuckoo build --input - --scalable --expected 100000 --output ids.cuckoo",
      "  cuckoo build --input words.txt --scheme redisbloom --scalable --expansion 2 -o w.cuckoo",
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
  private static final long DEFAULT_INITIAL_CAPACITY = 1024;
  private static final long MAX_INITIAL_CAPACITY = 1L << 36;
  private static final double MIN_GROWTH = 1.1;
  private static final double MAX_GROWTH = 64;
  private static final int REDIS_DEFAULT_BUCKET_SIZE = 2;
  private static final int REDIS_DEFAULT_MAX_ITERATIONS = 20;

  @Spec private CommandSpec spec;
  @ParentCommand private CuckooCli cli;

  @Option(
      names = "--input",
      required = true,
      paramLabel = "FILE|-",
      description = "Items, one per line; '-' reads standard input.")
  private String input;

  @Option(
      names = {"--output", "-o"},
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
        description = "Fingerprint width instead of --fpp: 4 to 32 (STANDARD, not --scalable).")
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
      description =
          "Number of items to size for (default: the input file's line count); with"
              + " --scalable, the first link's capacity.")
  private Long expected;

  @Option(
      names = "--scalable",
      description =
          "Build a growing filter (chain format) that adds links instead of becoming full.")
  private boolean scalable;

  @Option(
      names = "--growth-factor",
      paramLabel = "X",
      description = "--scalable standard: capacity ratio of each new link, 1.1 to 64 (default 2).")
  private Double growthFactor;

  @Option(
      names = "--expansion",
      paramLabel = "N",
      description =
          "--scalable redisbloom: CF.RESERVE's EXPANSION, 1 to 32768 (default 1, as Redis).")
  private Integer expansion;

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

  @ArgGroup(exclusive = true)
  private Duplicates duplicates = new Duplicates();

  /** Whether an item that might already be present is stored again. */
  static final class Duplicates {
    @Option(
        names = "--keep-duplicates",
        description =
            "Store every line, even one that might already be present (default for"
                + " redisbloom).")
    boolean keep;

    @Option(
        names = "--skip-duplicates",
        description =
            "Do not store a line that might already be present (default for standard).")
    boolean skip;
  }

  /** The values of {@code --scheme}. */
  enum SchemeOption {
    STANDARD,
    REDISBLOOM
  }

  @Override
  public Integer call() {
    validate();
    boolean keepDuplicates =
        duplicates.keep || (!duplicates.skip && scheme == SchemeOption.REDISBLOOM);
    long size =
        expected != null
            ? expected
            : scalable && ItemInput.isStdin(input) ? DEFAULT_INITIAL_CAPACITY : countLines();
    if (expected == null && scheme == SchemeOption.REDISBLOOM && !scalable) {
      // RedisBloom inserts (20 kicks by default) fill a table only partly: leave room, as Redis
      // users do with CF.RESERVE
      size = Math.multiplyExact(size, REDISBLOOM_HEADROOM);
    }
    CliFilter filter;
    try {
      filter = scalable ? newChain(Math.max(1, size)) : newFilter(Math.max(1, size));
    } catch (OutOfMemoryError | FilterAllocationException e) {
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
    // the progress total: unknown for standard input without --expected, and with --scalable
    // --expected is the first link's capacity, not the item count
    boolean unknownTotal =
        expected == null ? ItemInput.isStdin(input) : scalable;
    long total = unknownTotal ? -1 : size;
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
        "  %sload %s of capacity %s, %s bits/item, %s %s, file %s%n",
        filter instanceof ChainFilter
            ? Text.count(((ChainFilter) filter).filter().linkCount()) + " links, "
            : "",
        Text.percent(filter.loadFactor()),
        Text.count(filter.capacity()),
        Text.decimal(filter.bitsPerStoredItem(), 2),
        filter.rateLabel(),
        Text.percent(filter.expectedFalsePositiveRate()),
        Text.bytes(fileBytes));
    out.flush();
    return ExitCode.OK;
  }

  private String fullMessage(CliFilter filter, long read, long failed, long fullAt) {
    if (filter instanceof ChainFilter) {
      ChainFilter chain = (ChainFilter) filter;
      return "the scalable filter could not grow: item "
          + Text.count(fullAt)
          + " did not fit and no link could be added after "
          + Text.count(chain.filter().linkCount())
          + " links (capacity "
          + Text.count(filter.capacity())
          + ": the link limit, the heap, or fingerprints wider than 32 bits), and "
          + Text.count(failed)
          + " of "
          + Text.count(read)
          + " items had no room; use a larger --expected or --growth-factor/--expansion, or a"
          + " larger --fpp. Nothing was written.";
    }
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
        + " items had no room; use --scalable to let it grow, or --expected "
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
    if (scalable && rate.fingerprintBits != null) {
      fail("--fingerprint-bits does not apply to --scalable (each link's width follows --fpp)");
    }
    if (growthFactor != null && (!scalable || redis)) {
      fail("--growth-factor needs --scalable and --scheme standard (redisbloom: --expansion)");
    }
    if (growthFactor != null && !(growthFactor >= MIN_GROWTH && growthFactor <= MAX_GROWTH)) {
      fail("--growth-factor: " + growthFactor + " (expected: 1.1 to 64)");
    }
    if (expansion != null && (!scalable || !redis)) {
      fail("--expansion needs --scalable and --scheme redisbloom (standard: --growth-factor)");
    }
    if (expansion != null && (expansion < 1 || expansion > RedisDumpHeader.MAX_EXPANSION)) {
      fail(
          "--expansion: "
              + expansion
              + " (expected: 1 to "
              + RedisDumpHeader.MAX_EXPANSION
              + "; without --scalable the filter never grows)");
    }
    if (scalable
        && redis
        && maxKicks != null
        && (maxKicks < 1 || maxKicks > RedisDumpHeader.MAX_ITERATIONS)) {
      fail("--max-kicks: " + maxKicks + " (expected: 1 to 65535 for --scalable redisbloom)");
    }
    if (scalable && !redis && expected != null && expected > MAX_INITIAL_CAPACITY) {
      fail("--expected: " + expected + " (expected: 1 to " + MAX_INITIAL_CAPACITY + ")");
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

  private CliFilter newChain(long size) {
    if (scheme == SchemeOption.REDISBLOOM) {
      // the chain hashes with redisBytes (id 6), which equals redisUtf8 on a line's UTF-8 bytes
      CompatibleHasher hasher = CompatibleHasher.forId(ID_REDIS_BYTES, output.toString());
      return new ChainFilter(
          ScalableCuckooFilter.builder(hasher)
              .scheme(Scheme.REDISBLOOM)
              .bucketSize(bucketSize != null ? bucketSize : REDIS_DEFAULT_BUCKET_SIZE)
              .expectedItems(size)
              .maxKicks(maxKicks != null ? maxKicks : REDIS_DEFAULT_MAX_ITERATIONS)
              .expansion(expansion != null ? expansion : 1)
              .build(),
          hasher.describe());
    }
    int id = format == ItemFormat.LINES ? ID_UTF8 : ID_BYTES;
    CompatibleHasher hasher = CompatibleHasher.forId(id, output.toString());
    ScalableCuckooFilter.Builder<byte[]> builder =
        ScalableCuckooFilter.builder(hasher)
            .expectedItems(size)
            .falsePositiveRate(rate.fpp != null ? rate.fpp : 0.001)
            .bucketSize(bucketSize != null ? bucketSize : 4)
            .growthFactor(growthFactor != null ? growthFactor : 2.0);
    if (maxKicks != null) {
      builder.maxKicks(maxKicks);
    }
    if (seed != null) {
      builder.seed(seed);
    }
    return new ChainFilter(builder.build(), hasher.describe());
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
