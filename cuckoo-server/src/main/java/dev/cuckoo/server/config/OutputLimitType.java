package dev.cuckoo.server.config;

import java.util.Locale;

/**
 * The type of {@code client-output-buffer-limit}, Redis's {@code class hard soft seconds} groups
 * (classes normal, replica or slave, pubsub). This server enforces the pubsub class; the normal and
 * replica classes take Redis's defaults only, so that what CONFIG GET shows is what applies.
 */
final class OutputLimitType implements ValueType<OutputBufferLimit> {
  static final OutputLimitType INSTANCE = new OutputLimitType();

  private static final String SYNTAX = "Wrong number of arguments in buffer limit configuration.";

  private OutputLimitType() {}

  @Override
  public OutputBufferLimit parse(String text) {
    String[] words = text.trim().split("\\s+");
    if (words.length == 0 || words.length % 4 != 0) {
      throw ValueType.invalid(SYNTAX, "'" + text + "' (expected: pubsub <hard> <soft> <seconds>)");
    }
    OutputBufferLimit pubsub = null;
    for (int i = 0; i < words.length; i += 4) {
      Long hard = Memory.parse(words[i + 1]);
      Long soft = Memory.parse(words[i + 2]);
      Long seconds = Types.parseInteger(words[i + 3]);
      if (hard == null || soft == null || seconds == null || seconds < 0) {
        throw ValueType.invalid(
            "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
      }
      OutputBufferLimit limit = new OutputBufferLimit(hard, soft, seconds);
      switch (words[i].toLowerCase(Locale.ROOT)) {
        case "pubsub" -> pubsub = limit;
        case "normal" -> fixed(limit, OutputBufferLimit.NORMAL_DEFAULT, "normal");
        case "replica", "slave" -> fixed(limit, OutputBufferLimit.REPLICA_DEFAULT, "replica");
        default ->
            throw ValueType.invalid(
                "Invalid client class specified in buffer limit configuration.");
      }
    }
    if (pubsub == null) {
      throw ValueType.invalid(SYNTAX, "'" + text + "' (expected: pubsub <hard> <soft> <seconds>)");
    }
    return pubsub;
  }

  private static void fixed(OutputBufferLimit given, OutputBufferLimit only, String name) {
    if (!given.equals(only)) {
      throw ValueType.invalid(
          "this server keeps the "
              + name
              + " class at Redis's default ("
              + only.hardBytes()
              + " "
              + only.softBytes()
              + " "
              + only.softSeconds()
              + ")");
    }
  }

  @Override
  public String format(OutputBufferLimit value) {
    return group("normal", OutputBufferLimit.NORMAL_DEFAULT, false)
        + " "
        + group("slave", OutputBufferLimit.REPLICA_DEFAULT, false)
        + " "
        + group("pubsub", value, false);
  }

  /** Returns the pubsub class only, with units: the other classes hold Redis's defaults. */
  @Override
  public String rewrite(OutputBufferLimit value) {
    return group("pubsub", value, true);
  }

  private static String group(String name, OutputBufferLimit limit, boolean units) {
    return name
        + " "
        + (units ? Memory.format(limit.hardBytes()) : Long.toString(limit.hardBytes()))
        + " "
        + (units ? Memory.format(limit.softBytes()) : Long.toString(limit.softBytes()))
        + " "
        + limit.softSeconds();
  }
}
