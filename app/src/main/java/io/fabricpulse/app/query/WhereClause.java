package io.fabricpulse.app.query;

import dev.cel.bundle.Cel;
import dev.cel.bundle.CelBuilder;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.Program;
import java.util.Map;

/**
 * A {@code --where} predicate: a CEL expression (https://github.com/google/cel-spec) parsed and
 * type-checked by cel-java against the topic's {@link QueryVariables} before any record is read, so
 * a typo, an unknown variable or a non-boolean result is reported with its line and column.
 */
public final class WhereClause {

  /** An expression that does not compile: the message names its position. */
  public static final class BadExpression extends Exception {
    private static final long serialVersionUID = 1L;

    BadExpression(String message) {
      super(message);
    }
  }

  private final Program program;
  private long unmatchedForMissing;
  private String firstMissing;

  private WhereClause(Program program) {
    this.program = program;
  }

  public static WhereClause compile(String expression, QueryVariables variables)
      throws BadExpression {
    CelBuilder builder =
        CelFactory.standardCelBuilder()
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS) // has(), all(), exists(), ...
            .setResultType(SimpleType.BOOL);
    variables.variables().forEach(builder::addVar);
    Cel cel = builder.build();
    try {
      CelAbstractSyntaxTree ast = cel.compile(expression).getAst();
      return new WhereClause(cel.createProgram(ast));
    } catch (CelValidationException e) {
      // cel-java's message: "ERROR: <input>:1:6: undeclared reference to 'nod'" and the line with
      // a caret under the position
      throw new BadExpression(e.getMessage().replace("<input>", "--where"));
    } catch (dev.cel.common.CelException e) {
      throw new BadExpression(e.getMessage());
    }
  }

  /**
   * Whether the row matches; false too when evaluating needs a variable the row does not carry (a
   * null field), counted in {@link #unmatchedForMissing()}.
   */
  public boolean matches(Map<String, Object> row) {
    try {
      return Boolean.TRUE.equals(program.eval(row));
    } catch (CelEvaluationException e) {
      unmatchedForMissing++;
      if (firstMissing == null) {
        firstMissing = e.getMessage();
      }
      return false;
    }
  }

  public long unmatchedForMissing() {
    return unmatchedForMissing;
  }

  public String firstMissing() {
    return firstMissing;
  }
}
