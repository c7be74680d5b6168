package dev.cuckoo.server.config;

/**
 * The type of {@code bind}: 1 to {@value BindAddresses#MAX_ADDRESSES} resolvable addresses
 * separated by spaces, kept as written (trimmed); refused with Redis's CONFIG SET texts.
 */
final class BindType implements ValueType<String> {
  static final BindType INSTANCE = new BindType();

  private BindType() {}

  @Override
  public String parse(String text) {
    String error = BindAddresses.check(text);
    if (error != null) {
      String reason =
          BindAddresses.count(text) > BindAddresses.MAX_ADDRESSES
              ? "Too many bind addresses specified."
              : "Failed to bind to specified addresses.";
      // the check's text names the parameter already
      throw ValueType.invalid(reason, error.substring("bind: ".length()));
    }
    return text.trim();
  }

  @Override
  public String format(String value) {
    return value;
  }
}
