package dev.cuckoo.server.command;

import static dev.cuckoo.server.command.Argument.INTEGER;
import static dev.cuckoo.server.command.Argument.STRING;
import static dev.cuckoo.server.command.Argument.arg;
import static dev.cuckoo.server.command.Argument.block;
import static dev.cuckoo.server.command.Argument.key;
import static dev.cuckoo.server.command.Argument.token;
import static dev.cuckoo.server.command.CommandSpec.command;

import dev.cuckoo.AddOutcome;
import dev.cuckoo.FilterAllocationException;
import dev.cuckoo.FilterFormatException;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.ScanDumpChunk;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.session.Session;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The CF.* family: its table entries, with RedisBloom's flags, key specs and docs (group "module",
 * module "bf"), and its handlers, with RedisBloom's argument parsing, error order, error texts and
 * reply types. Flags and key specs as Redis 8 reports them; ACL categories exactly as RedisBloom
 * registers them (its mode strings and categories, plus "cuckoo": no implied {@code @slow} or
 * {@code @fast}, which Redis adds only to its own commands); docs from Redis's command JSON.
 *
 * <p>A write runs inside the write path, which holds its key's stripe lock, decided its refusal and
 * records what the command says it changed ({@link WriteScope}); a read holds the key's shared
 * stripe lock. Writes are recorded in a replay-safe form: a key created implicitly by CF.ADD or
 * CF.INSERT is recorded as an explicit CF.RESERVE with the parameters used, and CF.INSERT without
 * its creation options, so replay does not depend on cf-* settings changed later.
 */
final class CfFamily {
  static final String ERR_NOT_FOUND = "ERR not found";
  static final String ERR_ITEM_EXISTS = "ERR item exists";
  static final String ERR_NO_MEMORY = "ERR Insufficient memory";
  static final String ERR_CREATE_NO_MEMORY = "ERR Insufficient memory to create filter";
  static final String ERR_CREATE = "ERR Could not create filter";
  static final String FULL = "Filter is full";
  static final String NOT_FOUND = "Not found";
  static final String BAD_CAPACITY = "Bad capacity";
  static final String MAX_EXPANSIONS = "Maximum expansions reached";
  static final String INVALID_POSITION = "Invalid position";
  static final String INVALID_HEADER = "Invalid header";
  static final String CANNOT_CREATE = "Couldn't create filter!";
  static final String CANNOT_LOAD = "Couldn't load chunk!";
  static final String UNKNOWN_ARGUMENT = "Unknown argument received";
  static final String COMPACT_NOT_FOUND = "Cuckoo filter was not found";
  static final String RESERVE_CAPACITY_RANGE =
      "Capacity must be in the range [2 * BUCKETSIZE, 1073741824]";
  static final String INSERT_CAPACITY_RANGE =
      "Capacity must be in the range [cf-bucket-size * 2, 1073741824]";

  private static final int HEADER_BYTES = 38;
  private static final byte[] RESERVE = ascii("CF.RESERVE");
  private static final byte[] BUCKETSIZE = ascii("BUCKETSIZE");
  private static final byte[] MAXITERATIONS = ascii("MAXITERATIONS");
  private static final byte[] EXPANSION = ascii("EXPANSION");
  private static final byte[] ITEMS = ascii("ITEMS");

  private final Keyspace keyspace;
  private final CfConfig config;

  /** Creates the command set over a keyspace and its cf-* configuration. */
  CfFamily(Keyspace keyspace, CfConfig config) {
    this.keyspace = keyspace;
    this.config = config;
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Returns the entries, bound to handlers over the server's keyspace and cf-* configuration.
   *
   * @param parts what the handlers are built from
   */
  static List<CommandSpec.Builder> entries(Families.Parts parts) {
    CfFamily cf = new CfFamily(parts.context().keyspace(), parts.context().cfConfig());
    return List.of(
        command("cf.reserve")
            .arity(-3)
            .flags("write", "denyoom")
            .categories("write", "fast", "cuckoo")
            .keys(KeySpec.one(1, "RW"))
            .writes(Writes.MODULE_KEY)
            .summary("Creates a new Cuckoo Filter")
            .since("1.0.0")
            .module("bf")
            .complexity("O(1)")
            .arguments(
                key("key", 0),
                arg("capacity", INTEGER),
                block("bucketsize", arg("bucketsize", INTEGER)).token("BUCKETSIZE").optional(),
                block("maxiterations", arg("maxiterations", INTEGER))
                    .token("MAXITERATIONS")
                    .optional(),
                block("expansion", arg("expansion", INTEGER)).token("EXPANSION").optional())
            .handler(cf::reserve),
        command("cf.add")
            .arity(3)
            .flags("write", "denyoom")
            .categories("write", "cuckoo")
            .keys(KeySpec.one(1, "RW"))
            .writes(Writes.MODULE_KEY)
            .summary("Adds an item to a Cuckoo Filter")
            .since("1.0.0")
            .module("bf")
            .complexity("O(k + i), where k is the number of sub-filters and i is maxIterations")
            .arguments(key("key", 0), arg("item", STRING))
            .handler((s, a) -> cf.add(s, a, false)),
        command("cf.addnx")
            .arity(3)
            .flags("write", "denyoom")
            .categories("write", "cuckoo")
            .keys(KeySpec.one(1, "RW"))
            .writes(Writes.MODULE_KEY)
            .summary("Adds an item to a Cuckoo Filter if the item did not exist previously.")
            .since("1.0.0")
            .module("bf")
            .complexity("O(k + i), where k is the number of sub-filters and i is maxIterations")
            .arguments(key("key", 0), arg("item", STRING))
            .handler((s, a) -> cf.add(s, a, true)),
        command("cf.insert")
            .arity(-4)
            .flags("write", "denyoom")
            .categories("write", "cuckoo")
            .keys(KeySpec.one(1, "RW"))
            .writes(Writes.MODULE_KEY)
            .summary(
                "Adds one or more items to a Cuckoo Filter. A filter will be created if it does not exist")
            .since("1.0.0")
            .module("bf")
            .complexity(
                "O(n * (k + i)), where n is the number of items, k is the number of sub-filters and i is maxIterations")
            .arguments(
                key("key", 0),
                block("capacity", token("capacity", "CAPACITY"), arg("capacity", INTEGER))
                    .optional(),
                token("nocreate", "NOCREATE").optional(),
                token("items", "ITEMS"),
                arg("item", STRING).multiple())
            .handler((s, a) -> cf.insert(s, a, false)),
        command("cf.insertnx")
            .arity(-4)
            .flags("write", "denyoom")
            .categories("write", "cuckoo")
            .keys(KeySpec.one(1, "RW"))
            .writes(Writes.MODULE_KEY)
            .summary(
                "Adds one or more items to a Cuckoo Filter if the items did not exist previously. A filter will be created if it does not exist")
            .since("1.0.0")
            .module("bf")
            .complexity(
                "O(n * (k + i)), where n is the number of items, k is the number of sub-filters and i is maxIterations")
            .arguments(
                key("key", 0),
                block("capacity", arg("capacity", INTEGER)).optional(),
                token("nocreate", "CAPACITY").optional(),
                token("items", "ITEMS"),
                arg("item", STRING).multiple())
            .handler((s, a) -> cf.insert(s, a, true)),
        command("cf.exists")
            .arity(3)
            .flags("readonly", "fast")
            .categories("read", "cuckoo")
            .keys(KeySpec.one(1, "RO"))
            .summary("Checks whether one or more items exist in a Cuckoo Filter")
            .since("1.0.0")
            .module("bf")
            .complexity("O(k), where k is the number of sub-filters")
            .arguments(key("key", 0), arg("item", STRING))
            .handler(cf::exists),
        command("cf.mexists")
            .arity(-3)
            .flags("readonly", "fast")
            .categories("read", "cuckoo")
            .keys(KeySpec.one(1, "RO"))
            .summary("Checks whether one or more items exist in a Cuckoo Filter")
            .since("1.0.0")
            .module("bf")
            .complexity(
                "O(k * n), where k is the number of sub-filters and n is the number of items")
            .arguments(key("key", 0), arg("item", STRING).multiple())
            .handler(cf::mexists),
        command("cf.count")
            .arity(3)
            .flags("readonly", "fast")
            .categories("read", "cuckoo")
            .keys(KeySpec.one(1, "RO"))
            .summary("Return the number of times an item might be in a Cuckoo Filter")
            .since("1.0.0")
            .module("bf")
            .complexity("O(k), where k is the number of sub-filters")
            .arguments(key("key", 0), arg("item", STRING))
            .handler(cf::count),
        command("cf.del")
            .arity(3)
            .flags("write", "fast")
            .categories("write", "cuckoo")
            .keys(KeySpec.one(1, "RW"))
            .writes(Writes.MODULE_KEY)
            .summary("Deletes an item from a Cuckoo Filter")
            .since("1.0.0")
            .module("bf")
            .complexity("O(k), where k is the number of sub-filters")
            .arguments(key("key", 0), arg("item", STRING))
            .handler(cf::del),
        command("cf.info")
            .arity(2)
            .flags("readonly", "fast")
            .categories("read", "fast", "cuckoo")
            .keys(KeySpec.one(1, "RO"))
            .summary("Returns information about a Cuckoo Filter")
            .since("1.0.0")
            .module("bf")
            .complexity("O(1)")
            .tips("dont_cache")
            .arguments(key("key", 0))
            .handler(cf::info),
        command("cf.scandump")
            .arity(3)
            .flags("readonly", "fast")
            .categories("read", "cuckoo")
            .keys(KeySpec.one(1, "RW"))
            .summary("Begins an incremental save of the bloom filter")
            .since("1.0.0")
            .module("bf")
            .complexity("O(n), where n is the capacity")
            .tips("dont_cache")
            .arguments(key("key", 0), arg("iterator", INTEGER))
            .handler(cf::scanDump),
        command("cf.loadchunk")
            .arity(4)
            .flags("write", "denyoom")
            .categories("write", "cuckoo")
            .keys(KeySpec.one(1, "RW"))
            .writes(Writes.MODULE_KEY)
            .summary("Restores a filter previously saved using SCANDUMP")
            .since("1.0.0")
            .module("bf")
            .complexity("O(n), where n is the capacity")
            .arguments(key("key", 0), arg("iterator", INTEGER), arg("data", STRING))
            .handler(cf::loadChunk),
        command("cf.compact")
            .arity(-1)
            .flags("readonly", "fast")
            .categories("read", "cuckoo")
            .keys(KeySpec.one(1, "RW", "access", "update"))
            .writes(Writes.MODULE_KEY)
            .summary("Compacts a Cuckoo Filter")
            .since("1.0.0")
            .module("bf")
            .handler(cf::compact),
        command("cf.debug")
            .arity(2)
            .flags("readonly", "fast")
            .categories("read", "cuckoo")
            .keys(KeySpec.one(1, "RO"))
            .summary("Describes a Cuckoo Filter's internals")
            .since("1.0.0")
            .module("bf")
            .complexity("O(1)")
            .tips("dont_cache")
            .arguments(key("key", 0))
            .handler(cf::debug));
  }

  /** Code run with a key's lock held; the filter is null when the key does not exist. */
  @FunctionalInterface
  private interface FilterAction {
    void run(Key key, RedisCuckooFilter<byte[]> filter);
  }

  /**
   * Runs a writing action on the request's key, opened for writing in the request's write scope
   * (the write path holds its lock and counts the filter's size change).
   */
  private static void writing(Request request, FilterAction action) {
    Key key = request.key(0);
    action.run(key, request.write().open(key));
  }

  /**
   * Runs a read-only action on the request's key (the dispatcher holds its shared stripe lock); the
   * lookup counts as a hit or a miss, as RedisBloom's read-mode opening of the key does.
   */
  private void reading(Request request, FilterAction action) {
    Key key = request.key(0);
    action.run(key, keyspace.read(key));
  }

  /** Runs a read-only action on an existing filter, or replies {@code missingError}. */
  private void existing(
      Session session, Request request, String missingError, FilterAction action) {
    reading(request, present(session, missingError, action));
  }

  /** Runs a writing action on an existing filter, or replies {@code missingError}. */
  private static void existingForWrite(
      Session session, Request request, String missingError, FilterAction action) {
    writing(request, present(session, missingError, action));
  }

  private static FilterAction present(Session session, String missingError, FilterAction action) {
    return (key, filter) -> {
      if (filter == null) {
        session.reply().error(missingError);
      } else {
        action.run(key, filter);
      }
    };
  }

  /** Returns RedisBloom/Redis's wrong-arity error for a command name. */
  static String arityError(String name) {
    return "ERR wrong number of arguments for '" + name + "' command";
  }

  /**
   * Creates a filter, recorded as CF.RESERVE with its parameters, or writes RedisBloom's creation
   * error and returns null.
   */
  private RedisCuckooFilter<byte[]> create(
      Session session,
      Request request,
      Key key,
      long capacity,
      int bucketSize,
      int maxIterations,
      int expansion) {
    RedisCuckooFilter<byte[]> filter;
    try {
      // admission by the filter's own size, before anything is allocated
      if (!request
          .write()
          .admits(key, RedisCuckooFilter.reservedSizeInBytes(capacity, bucketSize))) {
        session.reply().error(Commands.OOM);
        return null;
      }
      filter = RedisCuckooFilter.reserve(capacity, bucketSize, maxIterations, expansion);
    } catch (FilterAllocationException e) {
      session.reply().error(ERR_CREATE_NO_MEMORY);
      return null;
    } catch (IllegalArgumentException e) {
      session.reply().error(ERR_CREATE);
      return null;
    }
    request.write().create(key, filter);
    request
        .write()
        .changed(
            new byte[][] {
              RESERVE,
              key.bytes(),
              Numbers.ascii(capacity),
              BUCKETSIZE,
              Numbers.ascii(bucketSize),
              MAXITERATIONS,
              Numbers.ascii(maxIterations),
              EXPANSION,
              Numbers.ascii(expansion)
            });
    return filter;
  }

  /** Returns the index of the first argument equal to the name ignoring case, or -1. */
  private static int argIndex(byte[][] args, byte[] name) {
    for (int i = 0; i < args.length; i++) {
      if (Args.equalsIgnoreCase(args[i], name)) {
        return i;
      }
    }
    return -1;
  }

  /** Parses an option value located anywhere in argv (RMUtil_ArgIndex); writes errors. */
  private static long option(
      Session session, byte[][] args, byte[] name, long defaultValue, long min, long max) {
    int index = argIndex(args, name);
    if (index < 0) {
      return defaultValue;
    }
    String text = new String(name, StandardCharsets.US_ASCII);
    Long value = index + 1 < args.length ? Numbers.parseLong(args[index + 1]) : null;
    if (value == null) {
      session.reply().error("Couldn't parse " + text);
      return Long.MIN_VALUE;
    }
    if (value < min || value > max) {
      session.reply().error(text + ": value must be in the range [" + min + ", " + max + "]");
      return Long.MIN_VALUE;
    }
    return value;
  }

  /** CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS m] [EXPANSION e]. */
  void reserve(Session session, Request request) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    if (args.length % 2 == 0) {
      reply.error(arityError("cf.reserve"));
      return;
    }
    Long capacity = Numbers.parseLong(args[2]);
    if (capacity == null) {
      reply.error(BAD_CAPACITY);
      return;
    }
    long maxIterations = option(session, args, MAXITERATIONS, config.maxIterations(), 1, 65535);
    if (maxIterations == Long.MIN_VALUE) {
      return;
    }
    long bucketSize = option(session, args, BUCKETSIZE, config.bucketSize(), 1, 255);
    if (bucketSize == Long.MIN_VALUE) {
      return;
    }
    long expansion = option(session, args, EXPANSION, config.expansionFactor(), 0, 32768);
    if (expansion == Long.MIN_VALUE) {
      return;
    }
    if (bucketSize * 2 > capacity || capacity > CfConfig.MAX_CAPACITY) {
      reply.error(RESERVE_CAPACITY_RANGE);
      return;
    }
    writing(
        request,
        (key, filter) -> {
          if (filter != null) {
            reply.error(ERR_ITEM_EXISTS);
          } else if (create(
                  session,
                  request,
                  key,
                  capacity,
                  (int) bucketSize,
                  (int) maxIterations,
                  (int) expansion)
              != null) {
            reply.ok();
          }
        });
  }

  /**
   * Returns the filter for a write command ({@code filter}, the key's), creating it with the
   * defaults if there is none; null on error.
   */
  private RedisCuckooFilter<byte[]> forWrite(
      Session session,
      Request request,
      Key key,
      RedisCuckooFilter<byte[]> filter,
      long capacity,
      boolean noCreate) {
    if (filter == null) {
      if (noCreate) {
        session.reply().error(ERR_NOT_FOUND);
        return null;
      }
      filter =
          create(
              session,
              request,
              key,
              capacity,
              config.bucketSize(),
              config.maxIterations(),
              config.expansionFactor());
      if (filter == null) {
        return null;
      }
    }
    if (!session.replaying() && filter.linkCount() >= config.maxExpansions()) {
      session.reply().error(MAX_EXPANSIONS);
      return null;
    }
    return filter;
  }

  /**
   * CF.ADD key item and CF.ADDNX key item. Written without a {@link FilterAction}: its lambda
   * escaped, 40 of the 280 bytes alloc-per-request.sh counted per CF.ADD.
   */
  void add(Session session, Request request, boolean ifAbsent) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    Key key = request.key(0);
    RedisCuckooFilter<byte[]> filter =
        forWrite(session, request, key, request.write().open(key), config.initialSize(), false);
    if (filter == null) {
      return;
    }
    AddOutcome result = ifAbsent ? filter.addIfAbsentWithOutcome(args[2]) : filter.tryAdd(args[2]);
    switch (result) {
      case ADDED:
        request.write().changed();
        reply.bool(true);
        break;
      case ALREADY_PRESENT:
        reply.bool(false);
        break;
      case FULL:
        reply.error(FULL);
        break;
      case NO_MEMORY:
      default:
        reply.error(ERR_NO_MEMORY);
        break;
    }
  }

  /** CF.INSERT / CF.INSERTNX key [CAPACITY c] [NOCREATE] ITEMS item [item ...]. */
  void insert(Session session, Request request, boolean ifAbsent) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    String name = ifAbsent ? "cf.insertnx" : "cf.insert";
    long capacity = config.initialSize();
    boolean noCreate = false;
    int itemsFrom = -1;
    int i = 2;
    while (i < args.length) {
      int first = args[i].length == 0 ? 0 : Character.toLowerCase(args[i][0]);
      if (first == 'c') {
        if (i + 1 >= args.length) {
          reply.error(arityError(name));
          return;
        }
        Long value = Numbers.parseLong(args[i + 1]);
        if (value == null) {
          reply.error(BAD_CAPACITY);
          return;
        }
        if (value < 2L * config.bucketSize() || value > CfConfig.MAX_CAPACITY) {
          reply.error(INSERT_CAPACITY_RANGE);
          return;
        }
        capacity = value;
        i += 2;
      } else if (first == 'n') {
        noCreate = true;
        i++;
      } else if (first == 'i') {
        itemsFrom = i + 1;
        break;
      } else {
        reply.error(UNKNOWN_ARGUMENT);
        return;
      }
    }
    if (itemsFrom < 0 || itemsFrom >= args.length) {
      reply.error(arityError(name));
      return;
    }
    long createCapacity = capacity;
    boolean createForbidden = noCreate;
    int firstItem = itemsFrom;
    writing(
        request,
        (key, existing) -> {
          RedisCuckooFilter<byte[]> filter =
              forWrite(session, request, key, existing, createCapacity, createForbidden);
          if (filter == null) {
            return;
          }
          boolean resp3 = reply.protocol() == 3;
          boolean changed = false;
          reply.array(args.length - firstItem);
          for (int item = firstItem; item < args.length; item++) {
            AddOutcome result =
                ifAbsent ? filter.addIfAbsentWithOutcome(args[item]) : filter.tryAdd(args[item]);
            boolean added = result == AddOutcome.ADDED;
            changed |= added;
            if (!ifAbsent && resp3) {
              reply.bool(added);
            } else {
              reply.integer(added ? 1 : result == AddOutcome.ALREADY_PRESENT ? 0 : -1);
            }
          }
          if (changed) {
            byte[][] record = new byte[args.length - firstItem + 3][];
            record[0] = args[0];
            record[1] = args[1];
            record[2] = ITEMS;
            System.arraycopy(args, firstItem, record, 3, args.length - firstItem);
            request.write().changed(record);
          }
        });
  }

  /** CF.EXISTS key item. */
  void exists(Session session, Request request) {
    byte[][] args = request.args();
    reading(
        request,
        (key, filter) -> session.reply().bool(filter != null && filter.mightContain(args[2])));
  }

  /** CF.MEXISTS key item [item ...]. */
  void mexists(Session session, Request request) {
    byte[][] args = request.args();
    reading(
        request,
        (key, filter) -> {
          Reply reply = session.reply();
          reply.array(args.length - 2);
          for (int i = 2; i < args.length; i++) {
            reply.bool(filter != null && filter.mightContain(args[i]));
          }
        });
  }

  /** CF.COUNT key item. */
  void count(Session session, Request request) {
    byte[][] args = request.args();
    reading(
        request,
        (key, filter) -> session.reply().integer(filter == null ? 0 : filter.count(args[2])));
  }

  /** CF.DEL key item. */
  void del(Session session, Request request) {
    byte[][] args = request.args();
    existingForWrite(
        session,
        request,
        NOT_FOUND,
        (key, filter) -> {
          boolean removed = filter.remove(args[2]);
          if (removed) {
            request.write().changed();
          }
          session.reply().bool(removed);
        });
  }

  /** CF.INFO key. */
  void info(Session session, Request request) {
    existing(
        session,
        request,
        ERR_NOT_FOUND,
        (key, filter) -> {
          Reply reply = session.reply();
          reply.map(8);
          reply.simple("Size");
          reply.integer(filter.redisSize());
          reply.simple("Number of buckets");
          reply.integer(filter.baseBucketCount());
          reply.simple("Number of filters");
          reply.integer(filter.linkCount());
          reply.simple("Number of items inserted");
          reply.integer(filter.size());
          reply.simple("Number of items deleted");
          reply.integer(filter.deletedCount());
          reply.simple("Bucket size");
          reply.integer(filter.bucketSize());
          reply.simple("Expansion rate");
          reply.integer(filter.expansion());
          reply.simple("Max iterations");
          reply.integer(filter.maxKicks());
        });
  }

  /** CF.DEBUG key. */
  void debug(Session session, Request request) {
    existing(
        session,
        request,
        ERR_NOT_FOUND,
        (key, filter) -> session.reply().bulk(filter.redisDebug()));
  }

  /** CF.COMPACT key. */
  void compact(Session session, Request request) {
    byte[][] args = request.args();
    if (args.length != 2) {
      session.reply().error(arityError("cf.compact"));
      return;
    }
    existingForWrite(
        session,
        request,
        COMPACT_NOT_FOUND,
        (key, filter) -> {
          filter.compact();
          request.write().changed();
          session.reply().ok();
        });
  }

  /** CF.SCANDUMP key iterator. */
  void scanDump(Session session, Request request) {
    byte[][] args = request.args();
    Long iterator = Numbers.parseLong(args[2]);
    if (iterator == null || iterator < 0) {
      session.reply().error(INVALID_POSITION);
      return;
    }
    existing(
        session,
        request,
        ERR_NOT_FOUND,
        (key, filter) -> {
          Reply reply = session.reply();
          ScanDumpChunk chunk = filter.scanDump(iterator);
          reply.array(2);
          reply.integer(chunk.iterator());
          if (chunk.data() == null) {
            reply.nullValue();
          } else {
            reply.bulk(chunk.data());
          }
        });
  }

  /** CF.LOADCHUNK key iterator data. */
  void loadChunk(Session session, Request request) {
    byte[][] args = request.args();
    Long iterator = Numbers.parseLong(args[2]);
    if (iterator == null || iterator == 0) {
      session.reply().error(INVALID_POSITION);
      return;
    }
    writing(
        request,
        (key, filter) -> {
          String error =
              iterator == 1
                  ? loadHeader(request, key, filter, args[3])
                  : loadChunk(filter, iterator, args[3]);
          if (error != null) {
            session.reply().error(error);
            return;
          }
          request.write().changed();
          session.reply().ok();
        });
  }

  private String loadHeader(
      Request request, Key key, RedisCuckooFilter<byte[]> existing, byte[] header) {
    if (existing != null) {
      return ERR_ITEM_EXISTS;
    }
    if (header.length != HEADER_BYTES) {
      return INVALID_HEADER;
    }
    try {
      RedisCuckooFilter<byte[]> loaded = RedisCuckooFilter.loadDumpHeader(header);
      // admitted by its own size (no size-before-load helper exists for a dump header)
      if (!request.write().admits(key, loaded.sizeInBytes())) {
        return Commands.OOM;
      }
      keyspace.put(key, loaded);
      return null;
    } catch (FilterFormatException | FilterAllocationException e) {
      return CANNOT_CREATE;
    }
  }

  private static String loadChunk(RedisCuckooFilter<byte[]> filter, long iterator, byte[] data) {
    if (filter == null) {
      return ERR_NOT_FOUND;
    }
    try {
      filter.loadDumpChunk(iterator, data);
      return null;
    } catch (FilterFormatException e) {
      return CANNOT_LOAD;
    }
  }
}
