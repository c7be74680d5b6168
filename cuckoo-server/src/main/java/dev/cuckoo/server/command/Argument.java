package dev.cuckoo.server.command;

import java.util.List;

/**
 * One argument of a command as COMMAND DOCS describes it (Redis's {@code arguments} in {@code
 * src/commands/*.json}): name, type, and the optional token, display text, summary, versions and
 * flags; a {@code oneof} or {@code block} holds its own arguments.
 *
 * <p>Built by the static factories and refined by the copying methods, e.g. {@code arg("count",
 * INTEGER).token("COUNT").optional()}.
 */
public record Argument(
    String name,
    String type,
    String displayText,
    int keySpecIndex,
    String token,
    String summary,
    String since,
    String deprecatedSince,
    boolean isOptional,
    boolean isMultiple,
    boolean isMultipleToken,
    List<Argument> arguments) {

  /** Type {@code key}. */
  public static final String KEY = "key";

  /** Type {@code string}. */
  public static final String STRING = "string";

  /** Type {@code integer}. */
  public static final String INTEGER = "integer";

  /** Type {@code double}. */
  public static final String DOUBLE = "double";

  /** Type {@code pattern}. */
  public static final String PATTERN = "pattern";

  /** Type {@code unix-time}. */
  public static final String UNIX_TIME = "unix-time";

  /** Type {@code pure-token}. */
  public static final String PURE_TOKEN = "pure-token";

  /** Type {@code oneof}: exactly one of its arguments. */
  public static final String ONEOF = "oneof";

  /** Type {@code block}: its arguments in order. */
  public static final String BLOCK = "block";

  /** Returns a plain argument of a type. */
  public static Argument arg(String name, String type) {
    return new Argument(
        name, type, null, -1, null, null, null, null, false, false, false, List.of());
  }

  /** Returns a key argument described by the command's key spec {@code keySpecIndex}. */
  public static Argument key(String name, int keySpecIndex) {
    return new Argument(
        name, KEY, null, keySpecIndex, null, null, null, null, false, false, false, List.of());
  }

  /** Returns a pure token, e.g. {@code token("nocreate", "NOCREATE")}. */
  public static Argument token(String name, String token) {
    return arg(name, PURE_TOKEN).token(token);
  }

  /** Returns a choice of exactly one of {@code choices}. */
  public static Argument oneOf(String name, Argument... choices) {
    return arg(name, ONEOF).with(List.of(choices));
  }

  /** Returns a group of arguments given together. */
  public static Argument block(String name, Argument... parts) {
    return arg(name, BLOCK).with(List.of(parts));
  }

  private Argument with(List<Argument> parts) {
    return new Argument(
        name,
        type,
        displayText,
        keySpecIndex,
        token,
        summary,
        since,
        deprecatedSince,
        isOptional,
        isMultiple,
        isMultipleToken,
        parts);
  }

  /** Returns this argument introduced by {@code token}. */
  public Argument token(String token) {
    return new Argument(
        name,
        type,
        displayText,
        keySpecIndex,
        token,
        summary,
        since,
        deprecatedSince,
        isOptional,
        isMultiple,
        isMultipleToken,
        arguments);
  }

  /** Returns this argument shown as {@code text} instead of its name. */
  public Argument display(String text) {
    return new Argument(
        name,
        type,
        text,
        keySpecIndex,
        token,
        summary,
        since,
        deprecatedSince,
        isOptional,
        isMultiple,
        isMultipleToken,
        arguments);
  }

  /** Returns this argument with a one-line summary. */
  public Argument summary(String text) {
    return new Argument(
        name,
        type,
        displayText,
        keySpecIndex,
        token,
        text,
        since,
        deprecatedSince,
        isOptional,
        isMultiple,
        isMultipleToken,
        arguments);
  }

  /** Returns this argument added in Redis {@code version}. */
  public Argument since(String version) {
    return new Argument(
        name,
        type,
        displayText,
        keySpecIndex,
        token,
        summary,
        version,
        deprecatedSince,
        isOptional,
        isMultiple,
        isMultipleToken,
        arguments);
  }

  /** Returns this argument deprecated since Redis {@code version}. */
  public Argument deprecatedSince(String version) {
    return new Argument(
        name,
        type,
        displayText,
        keySpecIndex,
        token,
        summary,
        since,
        version,
        isOptional,
        isMultiple,
        isMultipleToken,
        arguments);
  }

  /** Returns this argument as optional. */
  public Argument optional() {
    return new Argument(
        name,
        type,
        displayText,
        keySpecIndex,
        token,
        summary,
        since,
        deprecatedSince,
        true,
        isMultiple,
        isMultipleToken,
        arguments);
  }

  /** Returns this argument as repeatable. */
  public Argument multiple() {
    return new Argument(
        name,
        type,
        displayText,
        keySpecIndex,
        token,
        summary,
        since,
        deprecatedSince,
        isOptional,
        true,
        isMultipleToken,
        arguments);
  }

  /** Returns this argument as repeatable with its token before each repetition. */
  public Argument multipleToken() {
    return new Argument(
        name,
        type,
        displayText,
        keySpecIndex,
        token,
        summary,
        since,
        deprecatedSince,
        isOptional,
        isMultiple,
        true,
        arguments);
  }
}
