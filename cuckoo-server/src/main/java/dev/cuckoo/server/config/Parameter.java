package dev.cuckoo.server.config;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * One parameter of the table ({@link Parameters}), as a line of Redis's {@code static_configs[]}:
 * its name, the other names it answers to, its type and bounds, its default, whether CONFIG SET may
 * change it, and how a change reaches the running server.
 *
 * <p>A change reaches the server in one of two ways. Most parameters are <em>read</em>: the
 * component that uses one reads {@link Config#get} when it needs the value, so a CONFIG SET takes
 * effect at the next read. The others need an <em>applier</em> that the owning component registers
 * with {@link Config#onChange} (the listener moves, the log's fsync policy changes); until one is
 * registered, CONFIG SET takes only the current value and refuses any other with {@link
 * #unappliedReason()}.
 *
 * @param <T> the value's type
 */
public final class Parameter<T> {
  /** Checks a value against the other parameters' values (a constraint between parameters). */
  @FunctionalInterface
  public interface Constraint<T> {
    /**
     * Returns Redis's words for why {@code value} is refused given the other values, or null.
     *
     * @param value the parsed value
     * @param others the values of the other parameters as they would stand
     */
    String refusal(T value, View others);
  }

  /** Read access to parameters' values. */
  public interface View {
    /** Returns a parameter's value. */
    <V> V get(Parameter<V> parameter);
  }

  private final String name;
  private final ValueType<T> type;
  private final Supplier<T> defaultValue;
  private final String usage;
  private List<String> aliases = List.of();
  private List<String> oldNames = List.of();
  private Mutability mutability = Mutability.MUTABLE;
  private boolean needsApplier;
  private boolean reappliedWhenUnchanged;
  private String unappliedReason = "this server sets it only at start-up";
  private Constraint<T> constraint;
  private int index = -1;

  /**
   * Creates a parameter (its settings are completed by the table before anything reads it).
   *
   * @param name Redis's name
   * @param type how its text reads and prints
   * @param defaultValue its value when nothing sets it
   * @param usage the line {@code --help} prints after the option: its value's form and meaning
   */
  Parameter(String name, ValueType<T> type, Supplier<T> defaultValue, String usage) {
    this.name = name;
    this.type = type;
    this.defaultValue = defaultValue;
    this.usage = usage;
  }

  Parameter<T> aliases(String... names) {
    this.aliases = List.of(names);
    return this;
  }

  Parameter<T> oldNames(String... names) {
    this.oldNames = List.of(names);
    return this;
  }

  Parameter<T> mutability(Mutability mutability) {
    this.mutability = mutability;
    return this;
  }

  Parameter<T> applied() {
    this.needsApplier = true;
    return this;
  }

  Parameter<T> applied(String unappliedReason) {
    this.needsApplier = true;
    this.unappliedReason = unappliedReason;
    return this;
  }

  /**
   * Marks a parameter whose applier runs even when CONFIG SET gives the value it already has
   * (Redis's {@code VOLATILE_CONFIG}: a file name whose file may have changed on disk).
   */
  Parameter<T> reapplied() {
    this.reappliedWhenUnchanged = true;
    return this;
  }

  Parameter<T> constraint(Constraint<T> constraint) {
    this.constraint = constraint;
    return this;
  }

  Parameter<T> index(int index) {
    this.index = index;
    return this;
  }

  /** Returns Redis's name of the parameter. */
  public String name() {
    return name;
  }

  /** Returns Redis's other names for it (CONFIG GET lists them too, as Redis 7 does). */
  public List<String> aliases() {
    return aliases;
  }

  /** Returns older names of this server's that config files still use (accepted, not listed). */
  public List<String> oldNames() {
    return oldNames;
  }

  /** Returns whether CONFIG SET may change it. */
  public Mutability mutability() {
    return mutability;
  }

  /** Returns true if a change must go through an applier the owning component registers. */
  public boolean needsApplier() {
    return needsApplier;
  }

  /**
   * Returns true if CONFIG SET runs its applier even when the value does not change (a file name
   * whose file is read again).
   */
  public boolean reappliedWhenUnchanged() {
    return reappliedWhenUnchanged;
  }

  /** Returns why CONFIG SET refuses a new value while no applier is registered. */
  public String unappliedReason() {
    return unappliedReason;
  }

  /** Returns the value's type. */
  public ValueType<T> type() {
    return type;
  }

  /** Returns the default value. */
  public T defaultValue() {
    return defaultValue.get();
  }

  /** Returns what {@code --help} prints after the option's name. */
  public String usage() {
    return usage;
  }

  /** Returns the position of the parameter in the table. */
  int index() {
    return index;
  }

  /**
   * Reads a value from its text and checks it against the other parameters' values.
   *
   * @throws InvalidValueException naming this parameter, the text and Redis's reason
   */
  public T parse(String text, View others) {
    T value;
    try {
      value = type.parse(text, others == null ? defaultValue() : others.get(this));
    } catch (InvalidValueException e) {
      throw refused(text, e);
    }
    checkConstraint(value, text, others);
    return value;
  }

  /**
   * Checks a value given as such (by a builder's typed setter) as its text would be checked, so
   * that whatever is set can be written to a file and read back.
   *
   * @throws InvalidValueException naming this parameter, the value and Redis's reason
   */
  public T check(T value, View others) {
    String text = type.rewrite(value);
    T read = parse(text, others);
    if (!Objects.equals(read, value)) {
      throw ValueType.invalid(
          "argument does not read back as itself", name + ": " + text + " does not read back");
    }
    return value;
  }

  private void checkConstraint(T value, String text, View others) {
    String refusal = constraint == null ? null : constraint.refusal(value, others);
    if (refusal != null) {
      throw refused(text, ValueType.invalid(refusal));
    }
  }

  private InvalidValueException refused(String text, InvalidValueException e) {
    String detail = e.getMessage() != null ? e.getMessage() : e.reason() + ", got '" + text + "'";
    return new InvalidValueException(e.reason(), name + ": " + detail);
  }

  /** Returns the value as CONFIG GET shows it. */
  public String format(T value) {
    return type.format(value);
  }

  /** Returns the value as a config file holds it. */
  public String rewrite(T value) {
    return type.rewrite(value);
  }

  @Override
  public String toString() {
    return name;
  }
}
