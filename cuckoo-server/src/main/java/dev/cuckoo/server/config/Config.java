package dev.cuckoo.server.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The values of the parameters of {@link Parameters}: those a server started with, then what CONFIG
 * SET and the components that own a value (the port bound, the master followed) change. Reads are
 * lock-free; CONFIG SET's changes are checked and applied one command at a time, as Redis's {@code
 * configSetCommand}: every name, then every value, then the appliers, undone together if one of
 * them fails.
 */
public final class Config implements Parameter.View {
  /** Carries a change of some parameters into the running server. */
  @FunctionalInterface
  public interface Applier {
    /**
     * Applies the parameters' new values (read with {@link Config#get}).
     *
     * @return Redis's words for why the change could not be applied (nothing must then have
     *     changed), or null
     */
    String apply();
  }

  private final AtomicReferenceArray<Object> values;
  private final Map<Parameter<?>, Applier> appliers = new ConcurrentHashMap<>();
  private volatile Path file;
  private final List<Map.Entry<String, List<String>>> users = new ArrayList<>();

  /** Creates the values with every parameter at its default. */
  public Config() {
    List<Parameter<?>> all = Parameters.all();
    values = new AtomicReferenceArray<>(all.size());
    for (Parameter<?> parameter : all) {
      values.set(parameter.index(), parameter.defaultValue());
    }
  }

  private Config(Config other) {
    values = new AtomicReferenceArray<>(other.values.length());
    for (int i = 0; i < values.length(); i++) {
      values.set(i, other.values.get(i));
    }
    file = other.file;
    users.addAll(other.users);
  }

  /** Returns a copy of the values (and the file), without appliers. */
  public Config copy() {
    return new Config(this);
  }

  /** Returns a parameter's value. */
  @Override
  @SuppressWarnings("unchecked")
  public <T> T get(Parameter<T> parameter) {
    return (T) values.get(parameter.index());
  }

  /**
   * Sets a parameter's value, checked as its text would be (a component's own value, such as the
   * port actually bound, or a builder's typed setter).
   *
   * @throws InvalidValueException naming the parameter, the value and the reason
   */
  public <T> void put(Parameter<T> parameter, T value) {
    values.set(parameter.index(), parameter.check(value, this));
  }

  /**
   * Sets a parameter from its text, as the command line and config files do.
   *
   * @param name the parameter's name, an alias or an old name (any case)
   * @throws IllegalArgumentException for an unknown name ("unknown option 'x' (did you mean 'y'?)")
   *     or a value the parameter refuses ({@link InvalidValueException})
   */
  public void set(String name, String text) {
    Parameter<?> parameter = Parameters.find(name);
    if (parameter == null) {
      throw new IllegalArgumentException(unknown(name));
    }
    values.set(parameter.index(), parameter.parse(text, this));
  }

  /** Returns the message for a name no parameter has, with the closest known name if any. */
  public static String unknown(String name) {
    String closest = Parameters.closest(name);
    return "unknown option '"
        + name
        + "'"
        + (closest == null ? "" : " (did you mean '" + closest + "'?)");
  }

  /** Returns a parameter's value as CONFIG GET shows it. */
  public String text(Parameter<?> parameter) {
    return format(parameter);
  }

  private <T> String format(Parameter<T> parameter) {
    return parameter.format(get(parameter));
  }

  private <T> String rewriteText(Parameter<T> parameter) {
    return parameter.rewrite(get(parameter));
  }

  /** Returns the config file the values were read from (absolute), or null. */
  public Path file() {
    return file;
  }

  /** Records the config file the values were read from. */
  public void file(Path file) {
    this.file = file == null ? null : file.toAbsolutePath();
  }

  /**
   * Adds a {@code user} directive of a config file or the command line (Redis's ACL users defined
   * in redis.conf), loaded once the command table exists.
   *
   * @param origin where it was read, e.g. {@code conf/cuckoo.conf:12}
   * @param words the words after {@code user}: the name, then its rules
   */
  public synchronized void addUser(String origin, List<String> words) {
    users.add(Map.entry(origin, List.copyOf(words)));
  }

  /** Returns the {@code user} directives read, in order, each with its origin. */
  public synchronized List<Map.Entry<String, List<String>>> users() {
    return List.copyOf(users);
  }

  /**
   * Registers how changes of {@code parameters} reach the running server; one applier runs once per
   * CONFIG SET however many of its parameters change.
   */
  public void onChange(Applier applier, Parameter<?>... parameters) {
    for (Parameter<?> parameter : parameters) {
      appliers.put(parameter, applier);
    }
  }

  /**
   * Returns every name CONFIG GET lists (Redis's names and aliases, in the table's order) with its
   * value's text.
   */
  public Map<String, String> listed() {
    Map<String, String> listed = new LinkedHashMap<>();
    for (Parameter<?> parameter : Parameters.all()) {
      String text = text(parameter);
      listed.put(parameter.name(), text);
      for (String alias : parameter.aliases()) {
        listed.put(alias, text);
      }
    }
    return listed;
  }

  /**
   * Returns every parameter's value as a config file holds it, by Redis's name, in the table's
   * order: what CONFIG REWRITE writes, and what {@link #set} reads back to the same values.
   */
  public Map<String, String> fileValues() {
    Map<String, String> lines = new LinkedHashMap<>();
    for (Parameter<?> parameter : Parameters.all()) {
      lines.put(parameter.name(), rewriteText(parameter));
    }
    return lines;
  }

  /**
   * CONFIG SET's change: checks every name (unknown, immutable, protected, repeated), then every
   * value in order (each against the values the pairs before it set), then stores them and runs the
   * appliers of the parameters that changed; if one refuses, the old values are put back and the
   * appliers that ran run again.
   *
   * @param names the parameters' names as given
   * @param texts their values, one per name
   * @return null if the change was made, else Redis's error text (without the leading '-')
   */
  public synchronized String set(List<String> names, List<String> texts) {
    List<Parameter<?>> parameters = new ArrayList<>();
    Set<Parameter<?>> seen = new HashSet<>();
    for (String name : names) {
      Parameter<?> parameter = Parameters.find(name);
      if (parameter == null) {
        return "ERR Unknown option or number of arguments for CONFIG SET - '" + name + "'";
      }
      String refusal =
          switch (parameter.mutability()) {
            case IMMUTABLE -> "can't set immutable config";
            case PROTECTED -> "can't set protected config";
            case MUTABLE -> seen.add(parameter) ? null : "duplicate parameter";
          };
      if (refusal != null) {
        return failed(name, refusal);
      }
      parameters.add(parameter);
    }
    Config pending = copy();
    for (int i = 0; i < parameters.size(); i++) {
      Parameter<?> parameter = parameters.get(i);
      String name = names.get(i).toLowerCase(java.util.Locale.ROOT);
      try {
        pending.values.set(parameter.index(), parameter.parse(texts.get(i), pending));
      } catch (InvalidValueException e) {
        return failed(name, e.reason());
      }
      if (parameter.needsApplier()
          && !appliers.containsKey(parameter)
          && changed(pending, parameter)) {
        return failed(name, parameter.unappliedReason());
      }
    }
    return apply(pending, parameters, names);
  }

  private boolean changed(Config pending, Parameter<?> parameter) {
    return !Objects.equals(values.get(parameter.index()), pending.values.get(parameter.index()));
  }

  private String apply(Config pending, List<Parameter<?>> parameters, List<String> names) {
    Config old = copy();
    List<Applier> toRun = new ArrayList<>();
    List<String> namesOf = new ArrayList<>();
    for (Parameter<?> parameter : Parameters.all()) {
      int given = parameters.indexOf(parameter);
      if (given < 0 || !(changed(pending, parameter) || parameter.reappliedWhenUnchanged())) {
        continue;
      }
      Applier applier = appliers.get(parameter);
      if (applier != null && !toRun.contains(applier)) {
        toRun.add(applier);
        namesOf.add(names.get(given));
      }
    }
    for (Parameter<?> parameter : parameters) {
      values.set(parameter.index(), pending.values.get(parameter.index()));
    }
    for (int i = 0; i < toRun.size(); i++) {
      String refusal = toRun.get(i).apply();
      if (refusal != null) {
        for (Parameter<?> parameter : parameters) {
          values.set(parameter.index(), old.values.get(parameter.index()));
        }
        for (int j = 0; j < i; j++) {
          toRun.get(j).apply();
        }
        return failed(namesOf.get(i), refusal);
      }
    }
    return null;
  }

  private static String failed(String name, String reason) {
    return "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + reason;
  }
}
