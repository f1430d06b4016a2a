-- Global exchange-rate relations, written only by the FX worker's role (expense_fx), read by everyone's SQL.

CREATE TABLE public.fx_rates_raw (
  base_currency  text NOT NULL CONSTRAINT fx_rates_raw_base_check CHECK (base_currency ~ '^[A-Z]{3}$'),
  quote_currency text NOT NULL CONSTRAINT fx_rates_raw_quote_check CHECK (quote_currency ~ '^[A-Z]{3}$'),
  rate_date      date NOT NULL,
  rate           numeric NOT NULL CHECK (rate > 0),
  source         text NOT NULL CHECK (char_length(source) BETWEEN 1 AND 50),
  inserted_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (base_currency, quote_currency, rate_date, source)
);

CREATE TABLE public.fx_rates_daily (
  base_currency    text NOT NULL CONSTRAINT fx_rates_daily_base_check CHECK (base_currency ~ '^[A-Z]{3}$'),
  quote_currency   text NOT NULL CONSTRAINT fx_rates_daily_quote_check CHECK (quote_currency ~ '^[A-Z]{3}$'),
  calendar_date    date NOT NULL,
  rate             numeric NOT NULL CHECK (rate > 0),
  source_rate_date date NOT NULL CHECK (source_rate_date <= calendar_date),
  PRIMARY KEY (base_currency, quote_currency, calendar_date)
);
CREATE INDEX fx_rates_daily_date_idx ON public.fx_rates_daily (calendar_date);
