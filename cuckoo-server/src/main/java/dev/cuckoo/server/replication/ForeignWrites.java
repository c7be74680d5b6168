package dev.cuckoo.server.replication;

import dev.cuckoo.server.protocol.Args;
import java.util.Map;

/**
 * The writes of a Redis master's stream to types this server does not hold: the type each command's
 * group works on (Redis's command groups), for the counts in INFO, and the keys a write replaces
 * whatever they held (a SET over what was a filter here), which the replica then deletes.
 */
final class ForeignWrites {
  private static final Map<String, String> PREFIXES =
      Map.of(
          "bf.", "MBbloom--",
          "cms.", "CMSk-TYPE",
          "topk.", "TopK-TYPE",
          "tdigest.", "TDIS-TYPE",
          "json.", "ReJSON-RL",
          "ts.", "TSDB-TYPE",
          "ft.", "ft_index0");

  private static final Map<String, String> GROUPS = groups();

  private static Map<String, String> groups() {
    Map<String, String> groups = new java.util.HashMap<>();
    group(
        groups,
        "string",
        "set setex psetex setnx getset getdel getex mset msetnx append incr incrby incrbyfloat"
            + " decr decrby setrange setbit bitop bitfield lcs pfadd pfmerge pfcount");
    group(
        groups,
        "list",
        "lpush rpush lpushx rpushx linsert lset lrem ltrim lpop rpop lmove rpoplpush blmove"
            + " brpoplpush lmpop blmpop blpop brpop");
    group(groups, "set", "sadd srem spop smove sinterstore sunionstore sdiffstore");
    group(
        groups,
        "zset",
        "zadd zincrby zrem zremrangebyscore zremrangebyrank zremrangebylex zpopmin zpopmax zmpop"
            + " bzmpop bzpopmin bzpopmax zunionstore zinterstore zdiffstore zrangestore geoadd"
            + " georadius georadiusbymember geosearchstore");
    group(
        groups,
        "hash",
        "hset hsetnx hmset hdel hincrby hincrbyfloat hexpire hpexpire hexpireat hpexpireat"
            + " hpersist hgetdel hgetex hsetex");
    group(groups, "stream", "xadd xdel xtrim xgroup xack xclaim xautoclaim xsetid xreadgroup");
    return groups;
  }

  private static void group(Map<String, String> groups, String type, String names) {
    for (String name : names.split(" ")) {
      groups.put(name, type);
    }
  }

  private ForeignWrites() {}

  /** Returns Redis's name of the type the command {@code name} writes ("other" if not known). */
  static String typeOf(byte[] name) {
    String lower = Args.lower(name);
    String type = GROUPS.get(lower);
    if (type != null) {
      return type;
    }
    int dot = lower.indexOf('.');
    if (dot > 0) {
      String module = PREFIXES.get(lower.substring(0, dot + 1));
      if (module != null) {
        return module;
      }
    }
    return "other";
  }

  /**
   * Returns the keys the write {@code args} replaces whatever they held, which a filter of the same
   * name here no longer is on the master: SET, GETSET, SETEX, PSETEX, MSET's keys, the destination
   * of the *STORE commands and BITOP; none for other writes (which fail on the master with
   * WRONGTYPE, and are not propagated, when the key is a filter there).
   */
  static byte[][] replacedKeys(byte[][] args) {
    String lower = Args.lower(args[0]);
    switch (lower) {
      case "set", "getset", "setex", "psetex" -> {
        return args.length > 1 ? new byte[][] {args[1]} : new byte[0][];
      }
      case "mset" -> {
        byte[][] keys = new byte[(args.length - 1) / 2][];
        for (int i = 0; i < keys.length; i++) {
          keys[i] = args[1 + 2 * i];
        }
        return keys;
      }
      case "bitop" -> {
        return args.length > 2 ? new byte[][] {args[2]} : new byte[0][];
      }
      default -> {
        boolean store = lower.endsWith("store") && !lower.equals("georadius");
        return store && args.length > 1 ? new byte[][] {args[1]} : new byte[0][];
      }
    }
  }
}
