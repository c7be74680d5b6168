package dev.cuckoo.server.config;

import java.util.Locale;

/**
 * The type of {@code client-output-buffer-limit}: Redis's {@code class hard soft seconds} groups,
 * classes {@code normal}, {@code replica} (or {@code slave}) and {@code pubsub}, as Redis's {@code
 * updateClientOutputBufferLimit}: the classes a text names change, the others keep their value; the
 * whole text is refused if one group is wrong.
 */
final class OutputLimitType implements ValueType<OutputBufferLimits> {
  static final OutputLimitType INSTANCE = new OutputLimitType();

  private OutputLimitType() {}

  @Override
  public OutputBufferLimits parse(String text) {
    return parse(text, OutputBufferLimits.DEFAULT);
  }

  @Override
  public OutputBufferLimits parse(String text, OutputBufferLimits current) {
    String trimmed = text.trim();
    String[] words = trimmed.isEmpty() ? new String[0] : trimmed.split("\\s+");
    if (words.length % 4 != 0) {
      throw ValueType.invalid(
          "Wrong number of arguments in buffer limit configuration.",
          "'" + text + "' (expected: groups of <class> <hard> <soft> <seconds>)");
    }
    OutputBufferLimit normal = current.normal();
    OutputBufferLimit replica = current.replica();
    OutputBufferLimit pubsub = current.pubsub();
    for (int i = 0; i < words.length; i += 4) {
      String name = words[i].toLowerCase(Locale.ROOT);
      if (!name.equals("normal")
          && !name.equals("replica")
          && !name.equals("slave")
          && !name.equals("pubsub")) {
        throw ValueType.invalid("Invalid client class specified in buffer limit configuration.");
      }
      Long hard = Memory.parse(words[i + 1]);
      Long soft = Memory.parse(words[i + 2]);
      Long seconds = Types.parseInteger(words[i + 3]);
      if (hard == null || soft == null || seconds == null || seconds < 0) {
        throw ValueType.invalid(
            "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
      }
      OutputBufferLimit limit = new OutputBufferLimit(hard, soft, seconds);
      switch (name) {
        case "normal" -> normal = limit;
        case "pubsub" -> pubsub = limit;
        default -> replica = limit;
      }
    }
    return new OutputBufferLimits(normal, replica, pubsub);
  }

  /** Returns the three classes as Redis's CONFIG GET prints them: bytes, the replica as slave. */
  @Override
  public String format(OutputBufferLimits value) {
    return groups(value, "slave", false);
  }

  /** Returns the three classes with units, as a config file line holds them. */
  @Override
  public String rewrite(OutputBufferLimits value) {
    return groups(value, "replica", true);
  }

  private static String groups(OutputBufferLimits value, String replicaName, boolean units) {
    return group("normal", value.normal(), units)
        + " "
        + group(replicaName, value.replica(), units)
        + " "
        + group("pubsub", value.pubsub(), units);
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
