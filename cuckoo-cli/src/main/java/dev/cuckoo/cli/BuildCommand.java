package dev.cuckoo.cli;

import dev.cuckoo.AddOutcome;
import dev.cuckoo.CuckooFilter;
import dev.cuckoo.FilterAllocationException;
import dev.cuckoo.ItemHasher;
import dev.cuckoo.ItemHashers;
import dev.cuckoo.MembershipFilter;
import dev.cuckoo.RedisCuckooFilter;
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
      "--scalable builds a growing filter (ScalableCuckooFilter, or RedisCuckooFilter for"
          + " redisbloom; written in the chain format):"
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
  private static final int REDISBLOOM_HEADROOM = 2;
  // built-in hasher ids: text lines are recorded as utf8/redisUtf8, so that the library reads the
  // file with ItemHashers.utf8() or redisUtf8(); hex and Base64 items as bytes/redisBytes
  private static final int ID_UTF8 = ItemHashers.utf8().id();
  private static final int ID_BYTES = ItemHashers.bytes().id();
  private static final int ID_REDIS_UTF8 = ItemHashers.redisUtf8().id();
  private static final int ID_REDIS_BYTES = ItemHashers.redisBytes().id();
  private static final long DEFAULT_INITIAL_CAPACITY = 1024;

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
        description = "Do not store a line that might already be present (default for standard).")
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
    MembershipFilter<byte[]> filter;
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
    boolean unknownTotal = expected == null ? ItemInput.isStdin(input) : scalable;
    long total = unknownTotal ? -1 : size;
    Progress progress = Progress.onConsole(spec.commandLine().getErr(), "building", total);
    try (ItemInput items = ItemInput.open(input, cli.stdin(), format)) {
      ItemHasher<? super byte[]> hasher = filter.hasher();
      for (byte[] item = items.next(); item != null; item = items.next()) {
        read++;
        long hash = hasher.hash(item);
        if (failed > 0) {
          // full: the build has failed; only count what else would have needed a slot
          if (keepDuplicates || !filter.mightContainHash(hash)) {
            failed++;
          }
          continue;
        }
        // keeping duplicates, an add never finds the item present: it stores a copy or is full
        AddOutcome outcome =
            keepDuplicates
                ? (filter.addHash(hash) ? AddOutcome.ADDED : AddOutcome.FULL)
                : filter.addIfAbsentWithOutcomeHash(hash);
        if (outcome == AddOutcome.ALREADY_PRESENT) {
          skipped++;
        } else if (outcome != AddOutcome.ADDED) {
          // FULL, or NO_MEMORY from a chain that could not add a link
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
    // a filter that never grows is written in the single-filter form, as it always was
    long fileBytes =
        filter instanceof RedisCuckooFilter<byte[]> redis && !scalable
            ? FilterFiles.writeSingle(redis, redis.hasher(), output)
            : FilterFiles.write(filter, output);
    long nanos = System.nanoTime() - start;
    int links = FilterSummary.linkCount(filter, scalable);
    out.printf(
        "wrote %s: %s items from %s lines (%s not stored: repeated, or false positives) in %s%n",
        output,
        Text.count(filter.size()),
        Text.count(read),
        Text.count(skipped),
        Text.seconds(nanos));
    if (skipped > 0) {
      // the rate grew with the load as the lines went in: about half its final value on average
      long expectedFalsePositives =
          Math.round(FilterSummary.reportedRate(filter, scalable) / 2 * read);
      out.printf(
          "  %s lines were not stored because the filter already answered \"might contain\" for"
              + " them: lines seen before, or false positives of the filter being built (about %s"
              + " expected among distinct lines at its rate); --keep-duplicates stores every"
              + " line%n",
          Text.count(skipped), Text.count(expectedFalsePositives));
    }
    out.printf(
        "  %sload %s of capacity %s, %s bits/item, %s %s, file %s%n",
        links > 0 ? Text.count(links) + " links, " : "",
        Text.percent(FilterSummary.loadFactor(filter, scalable)),
        Text.count(filter.capacity()),
        Text.decimal(FilterSummary.bitsPerStoredItem(filter), 2),
        FilterSummary.rateLabel(scalable),
        Text.percent(FilterSummary.reportedRate(filter, scalable)),
        Text.bytes(fileBytes));
    out.flush();
    return ExitCode.OK;
  }

  private String fullMessage(MembershipFilter<byte[]> filter, long read, long failed, long fullAt) {
    if (scalable) {
      return "the scalable filter could not grow: item "
          + Text.count(fullAt)
          + " did not fit and no link could be added after "
          + Text.count(FilterSummary.linkCount(filter, true))
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
        + Text.percent(FilterSummary.loadFactor(filter, false))
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

  /**
   * Checks the options before any input is read: which options go together here, and every value
   * against the core builders' own ranges (a probe builder is configured, never built), worded with
   * the option names.
   */
  private void validate() {
    boolean redis = scheme == SchemeOption.REDISBLOOM;
    // the STANDARD probe; redisbloom's ranges are RedisCuckooFilter.reserve's
    CuckooFilter.Builder<byte[]> single =
        CuckooFilter.builder(ItemHashers.bytes()).scheme(Scheme.STANDARD);
    ScalableCuckooFilter.Builder<byte[]> chain = ScalableCuckooFilter.builder(ItemHashers.bytes());
    if (rate.fpp != null) {
      check(
          () -> single.falsePositiveRate(rate.fpp),
          "--fpp: " + rate.fpp + " (expected: 0 < fpp < 1)");
    }
    if (rate.fingerprintBits != null) {
      check(
          () -> single.fingerprintBits(rate.fingerprintBits),
          "--fingerprint-bits: "
              + rate.fingerprintBits
              + " (expected: "
              + CuckooFilter.MIN_FINGERPRINT_BITS
              + " to "
              + CuckooFilter.MAX_FINGERPRINT_BITS
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
      check(
          () -> {
            if (redis) {
              // any size RedisBloom takes, for a single filter and a chain alike
              if (bucketSize < 1 || bucketSize > RedisCuckooFilter.MAX_BUCKET_SIZE) {
                throw new IllegalArgumentException("bucketSize: " + bucketSize);
              }
            } else {
              chain.bucketSize(bucketSize);
            }
          },
          "--bucket-size: "
              + bucketSize
              + (redis ? " (expected: 1 to 255 for redisbloom)" : " (expected: 2, 4 or 8)"));
    }
    if (scalable && rate.fingerprintBits != null) {
      fail("--fingerprint-bits does not apply to --scalable (each link's width follows --fpp)");
    }
    if (growthFactor != null && (!scalable || redis)) {
      fail("--growth-factor needs --scalable and --scheme standard (redisbloom: --expansion)");
    }
    if (growthFactor != null) {
      check(
          () -> chain.growthFactor(growthFactor),
          "--growth-factor: "
              + growthFactor
              + " (expected: "
              + Text.decimal(ScalableCuckooFilter.MIN_GROWTH_FACTOR, 1)
              + " to "
              + Text.decimal(ScalableCuckooFilter.MAX_GROWTH_FACTOR, 0)
              + ")");
    }
    if (expansion != null && (!scalable || !redis)) {
      fail("--expansion needs --scalable and --scheme redisbloom (standard: --growth-factor)");
    }
    // 0 (never grow) is the core's too, but here it is what leaving out --scalable means
    if (expansion != null && (expansion < 1 || expansion > RedisCuckooFilter.MAX_EXPANSION)) {
      fail(
          "--expansion: "
              + expansion
              + " (expected: 1 to "
              + RedisCuckooFilter.MAX_EXPANSION
              + "; without --scalable the filter never grows)");
    }
    if (redis
        && maxKicks != null
        && (maxKicks < 1 || maxKicks > RedisCuckooFilter.MAX_ITERATIONS)) {
      // CF.RESERVE's MAXITERATIONS, for a filter that grows or not
      fail(
          "--max-kicks: "
              + maxKicks
              + " (expected: 1 to "
              + RedisCuckooFilter.MAX_ITERATIONS
              + (scalable ? " for --scalable redisbloom)" : " for redisbloom)"));
    }
    if (expected != null && expected < 1) {
      fail("--expected: " + expected + " (expected: at least 1)");
    }
    if (expected != null) {
      // the first link's capacity (--scalable) or the filter's: each builder knows its bound
      try {
        if (scalable && redis) {
          // CF.RESERVE's capacity, checked by RedisCuckooFilter.reserve before anything is sized
          requireAtMost("expectedItems", expected, RedisCuckooFilter.MAX_CAPACITY);
        } else if (redis) {
          // a filter that never grows: the bound of the single filters this command has built
          requireAtMost("expectedItems", expected, CuckooFilter.MAX_EXPECTED_ITEMS);
        } else if (scalable) {
          chain.expectedItems(expected);
        } else {
          single.expectedItems(expected);
        }
      } catch (IllegalArgumentException e) {
        fail("--expected: " + expected + " (" + e.getMessage() + ")");
      }
    }
    if (maxKicks != null) {
      check(
          () -> single.maxKicks(maxKicks),
          "--max-kicks: " + maxKicks + " (expected: 0 to " + CuckooFilter.MAX_KICKS_LIMIT + ")");
    }
  }

  /** Throws as the core's range checks do if {@code value} is above {@code max}. */
  private static void requireAtMost(String name, long value, long max) {
    if (value > max) {
      throw new IllegalArgumentException(
          name + ": " + value + " (expected: 1 <= " + name + " <= " + max + ")");
    }
  }

  /** Runs a probe builder's setter; if the core rejects the value, fails with {@code message}. */
  private void check(Runnable setter, String message) {
    try {
      setter.run();
    } catch (IllegalArgumentException e) {
      fail(message);
    }
  }

  private void fail(String message) {
    throw new ParameterException(spec.commandLine(), message);
  }

  private MembershipFilter<byte[]> newChain(long size) {
    if (scheme == SchemeOption.REDISBLOOM) {
      // the chain hashes with redisBytes (id 6), which equals redisUtf8 on a line's UTF-8 bytes;
      // what is not set takes CF.RESERVE's defaults (the builder's)
      CompatibleHasher hasher = CompatibleHasher.forId(ID_REDIS_BYTES, output.toString());
      return RedisCuckooFilter.reserve(
          hasher,
          size,
          bucketSize != null ? bucketSize : RedisCuckooFilter.DEFAULT_BUCKET_SIZE,
          maxKicks != null ? maxKicks : RedisCuckooFilter.DEFAULT_MAX_ITERATIONS,
          expansion != null ? expansion : RedisCuckooFilter.DEFAULT_EXPANSION);
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
    return builder.build();
  }

  private MembershipFilter<byte[]> newFilter(long size) {
    if (scheme == SchemeOption.REDISBLOOM) {
      // CF.RESERVE ... EXPANSION 0: one link that never grows, written as a single filter
      int id = format == ItemFormat.LINES ? ID_REDIS_UTF8 : ID_REDIS_BYTES;
      CompatibleHasher hasher = CompatibleHasher.forId(id, output.toString());
      return RedisCuckooFilter.reserve(
          hasher,
          size,
          bucketSize != null ? bucketSize : RedisCuckooFilter.DEFAULT_BUCKET_SIZE,
          maxKicks != null ? maxKicks : RedisCuckooFilter.DEFAULT_MAX_ITERATIONS,
          0);
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
    return builder.build();
  }
}
