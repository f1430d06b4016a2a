import { isFields, single, stringValue } from './tree.js';

/**
 * The name PostgreSQL gives an unnamed select-list expression (parse_target.c, FigureColname), computed on
 * the raw parse tree. A subquery's or CTE's columns are these names, so they must be PostgreSQL's exactly:
 * a name PostgreSQL would not give would let `x.name` through where PostgreSQL calls `name(x)`.
 * `subqueryNames` answers for an EXPR sublink: the name of its subquery's first column.
 */
export interface SubqueryNames {
  get(sublink: object): string | undefined;
}

export function figureColname(node: unknown, subqueryNames: SubqueryNames): string {
  return figure(node, subqueryNames)?.[0] ?? '?column?';
}

type Named = [name: string, strength: number];

function figure(node: unknown, subqueryNames: SubqueryNames): Named | undefined {
  const entry = single(node);
  if (!entry || !isFields(entry[1])) return undefined;
  const [type, f] = entry;
  switch (type) {
    case 'ColumnRef': {
      let name: string | undefined;
      for (const part of Array.isArray(f.fields) ? f.fields : []) name = stringValue(part) ?? name;
      return name === undefined ? undefined : [name, 2];
    }
    case 'FuncCall': {
      const names = Array.isArray(f.funcname) ? f.funcname : [];
      const last = stringValue(names[names.length - 1]);
      return last === undefined ? undefined : [last, 2];
    }
    case 'A_Expr':
      return f.kind === 'AEXPR_NULLIF' ? ['nullif', 2] : undefined;
    case 'TypeCast': {
      const inner = figure(f.arg, subqueryNames);
      if (inner && inner[1] > 1) return inner;
      const names = isFields(f.typeName) && Array.isArray(f.typeName.names) ? f.typeName.names : [];
      const last = stringValue(names[names.length - 1]);
      return last === undefined ? inner : [last, 1];
    }
    case 'SubLink':
      switch (f.subLinkType) {
        case 'EXISTS_SUBLINK':
          return ['exists', 2];
        case 'ARRAY_SUBLINK':
          return ['array', 2];
        case 'EXPR_SUBLINK': {
          const name = subqueryNames.get(f);
          return name === undefined ? undefined : [name, 2];
        }
        default:
          return undefined;
      }
    case 'CaseExpr': {
      const inner = figure(f.defresult, subqueryNames);
      return inner && inner[1] > 1 ? inner : ['case', 1];
    }
    case 'RowExpr':
      return ['row', 2];
    case 'CoalesceExpr':
      return ['coalesce', 2];
    case 'MinMaxExpr':
      return [f.op === 'IS_LEAST' ? 'least' : 'greatest', 2];
    case 'GroupingFunc':
      return ['grouping', 2];
    case 'SQLValueFunction': {
      const name = SQL_VALUE_FUNCTION_NAMES[String(f.op)];
      return name === undefined ? undefined : [name, 2];
    }
    default:
      // Any other node type gets "?column?", which no unquoted reference can name.
      return undefined;
  }
}

const SQL_VALUE_FUNCTION_NAMES: Readonly<Record<string, string>> = {
  SVFOP_CURRENT_DATE: 'current_date',
  SVFOP_CURRENT_TIME: 'current_time',
  SVFOP_CURRENT_TIME_N: 'current_time',
  SVFOP_CURRENT_TIMESTAMP: 'current_timestamp',
  SVFOP_CURRENT_TIMESTAMP_N: 'current_timestamp',
  SVFOP_LOCALTIME: 'localtime',
  SVFOP_LOCALTIME_N: 'localtime',
  SVFOP_LOCALTIMESTAMP: 'localtimestamp',
  SVFOP_LOCALTIMESTAMP_N: 'localtimestamp',
  SVFOP_CURRENT_ROLE: 'current_role',
  SVFOP_CURRENT_USER: 'current_user',
  SVFOP_USER: 'user',
  SVFOP_SESSION_USER: 'session_user',
  SVFOP_CURRENT_CATALOG: 'current_catalog',
  SVFOP_CURRENT_SCHEMA: 'current_schema',
};
