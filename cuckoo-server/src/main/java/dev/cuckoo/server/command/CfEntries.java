package dev.cuckoo.server.command;

import static dev.cuckoo.server.command.Argument.INTEGER;
import static dev.cuckoo.server.command.Argument.STRING;
import static dev.cuckoo.server.command.Argument.arg;
import static dev.cuckoo.server.command.Argument.block;
import static dev.cuckoo.server.command.Argument.key;
import static dev.cuckoo.server.command.Argument.token;
import static dev.cuckoo.server.command.CommandSpec.command;

import java.util.List;

/**
 * The CF.* commands, with RedisBloom's flags, key specs and docs (group "module", module "bf").
 * Flags and key specs as Redis 8 reports them; ACL categories exactly as RedisBloom registers them
 * (its mode strings and categories, plus "cuckoo": no implied {@code @slow} or {@code @fast}, which
 * Redis adds only to its own commands); docs from Redis's command JSON.
 */
final class CfEntries {
  private CfEntries() {}

  /**
   * Returns the entries, bound to their handlers.
   *
   * @param cf the handlers of CfCommands
   */
  static List<CommandSpec.Builder> entries(CfCommands cf) {
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
}
