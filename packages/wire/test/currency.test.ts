import { describe, expect, it } from 'vitest';
import { isIanaTimeZone, isIsoCurrency, minorUnits, roundDecimal } from '../src/currency.js';

describe('currencies and rounding', () => {
  it('rounds decimal strings exactly, half away from zero, to the minor units of ISO 4217', () => {
    expect(roundDecimal('12.6128750364113020682142', minorUnits('EUR'))).toBe('12.61');
    expect(roundDecimal('0.005', 2)).toBe('0.01');
    expect(roundDecimal('-0.005', 2)).toBe('-0.01');
    expect(roundDecimal('-0.004', 2)).toBe('0.00');
    expect(roundDecimal('320246.8', minorUnits('JPY'))).toBe('320247');
    expect(roundDecimal('1.0005', minorUnits('KWD'))).toBe('1.001');
    expect(roundDecimal('99.995', 2)).toBe('100.00');
    expect(roundDecimal('7', 2)).toBe('7.00');
    expect(roundDecimal('NaN', 2)).toBe('NaN');
  });

  it('knows ISO 4217 codes and IANA zones', () => {
    expect(['EUR', 'USD', 'JPY'].every(isIsoCurrency)).toBe(true);
    expect(['eur', 'XYZ', 'EURO', ''].some(isIsoCurrency)).toBe(false);
    expect(['Europe/Berlin', 'America/New_York', 'UTC'].every(isIanaTimeZone)).toBe(true);
    expect(['Mars/Olympus', '+01:00', "UTC'; --", ''].some(isIanaTimeZone)).toBe(false);
  });
});
