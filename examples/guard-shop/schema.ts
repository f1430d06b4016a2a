/**
 * The shop's schema: four tables, each row belonging to a tenant, keyed by `(tenant_id, id)` and referencing each other
 * by `(tenant_id, …)`: PostgreSQL checks foreign keys without row-level security, so a key without the tenant would let
 * a tenant reference another's rows and learn which ids exist (verifyDialect's `tenantColumn` reports such keys). And
 * row-level security that shows a role only the
 * rows of the tenant its transaction names (`SET LOCAL shop.tenant = '…'`). The role is created here, NOLOGIN, with
 * the operations the shop allows it (introspectDialect reads them; grantStatements narrows them to columns and
 * adds what the guard's runner needs): the application's connections run as it (`-c role=…` at connect).
 */
export function shopSchema(role: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(role)) throw new TypeError(`not a role name: ${role}`);
  const tenant = "current_setting('shop.tenant')::integer";
  const tables = ['customers', 'products', 'orders', 'order_items'];
  return `
CREATE ROLE ${role} NOLOGIN;
CREATE TABLE customers (
  id serial, tenant_id integer NOT NULL DEFAULT ${tenant}, name text NOT NULL, email text NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE TABLE products (
  id serial, tenant_id integer NOT NULL DEFAULT ${tenant}, sku text NOT NULL, title text NOT NULL,
  price numeric(10, 2) NOT NULL CHECK (price >= 0), PRIMARY KEY (tenant_id, id)
);
CREATE TABLE orders (
  id serial, tenant_id integer NOT NULL DEFAULT ${tenant}, customer_id integer NOT NULL,
  placed_on date NOT NULL, status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'paid', 'shipped')),
  PRIMARY KEY (tenant_id, id), FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id)
);
CREATE TABLE order_items (
  id serial, tenant_id integer NOT NULL DEFAULT ${tenant}, order_id integer NOT NULL, product_id integer NOT NULL,
  quantity integer NOT NULL CHECK (quantity > 0), PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, id),
  FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id)
);
GRANT SELECT ON customers, products TO ${role};
GRANT SELECT, INSERT, UPDATE ON orders TO ${role};
GRANT SELECT, INSERT ON order_items TO ${role};
${tables
  .map(
    (t) => `ALTER TABLE ${t} ENABLE ROW LEVEL SECURITY;
CREATE POLICY ${t}_tenant ON ${t} USING (tenant_id = ${tenant});`,
  )
  .join('\n')}
`;
}

/** A few rows for two tenants (as the owner, who is not subject to the policies). */
export const shopRows = `
INSERT INTO customers (tenant_id, name, email) VALUES (1, 'Ada', 'ada@example.com'), (1, 'Alan', 'alan@example.com'),
  (2, 'Grace', 'grace@example.com');
INSERT INTO products (tenant_id, sku, title, price) VALUES (1, 'TEA', 'Tea', 4.50), (1, 'MUG', 'Mug', 12.00),
  (2, 'PEN', 'Pen', 2.00);
INSERT INTO orders (tenant_id, customer_id, placed_on, status) VALUES (1, 1, '2026-11-01', 'paid'),
  (1, 2, '2026-11-02', 'open'), (2, 3, '2026-11-02', 'paid');
INSERT INTO order_items (tenant_id, order_id, product_id, quantity) VALUES (1, 1, 1, 2), (1, 1, 2, 1), (1, 2, 1, 1),
  (2, 3, 3, 10);
`;
