package dev.cuckoo.server.config;

/** The type of {@code replicaof}: "host port", or the empty text (null) for none. */
final class ReplicaOfType implements ValueType<String> {
  static final ReplicaOfType INSTANCE = new ReplicaOfType();

  private static final ValueType<Long> PORT = Types.integer(1, 65535);

  private ReplicaOfType() {}

  @Override
  public String parse(String text) {
    if (text.isBlank() || text.trim().equalsIgnoreCase("no one")) {
      return null;
    }
    String[] parts = text.trim().split("\\s+");
    if (parts.length != 2) {
      throw ValueType.invalid(
          "wrong number of arguments", "'" + text + "' (expected: \"host port\")");
    }
    try {
      PORT.parse(parts[1]);
    } catch (InvalidValueException e) {
      throw ValueType.invalid("Invalid master port", "port of '" + text + "': " + e.reason());
    }
    return parts[0] + " " + parts[1];
  }

  @Override
  public String format(String value) {
    return value == null ? "" : value;
  }
}
