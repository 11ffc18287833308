import { DashboardAccessRuleMissingError } from '../../../lib/core/errors/dashboard-access-rule-missing.error';
import { InvalidDashboardOptionError } from '../../../lib/core/errors/invalid-dashboard-option.error';
import { dashboardSettings } from '../../../lib/dashboard/dashboard-settings';

describe('dashboardSettings', () => {
  it('needs an access rule, or open: true said explicitly', () => {
    expect(() => dashboardSettings({})).toThrow(DashboardAccessRuleMissingError);
    expect(() => dashboardSettings({ guards: [] })).toThrow(DashboardAccessRuleMissingError);
    expect(() => dashboardSettings({ open: false })).toThrow(/`open: true`/);
    expect(dashboardSettings({ open: true }).path).toBe('/threadmill');
    expect(dashboardSettings({ authorize: () => true }).refreshMs).toBe(2000);
  });

  it('normalizes the path and refuses one that is not a URL path', () => {
    expect(dashboardSettings({ open: true, path: 'ops/tasks/' }).path).toBe('/ops/tasks');
    expect(() => dashboardSettings({ open: true, path: '/a b' })).toThrow(
      InvalidDashboardOptionError,
    );
    expect(() => dashboardSettings({ open: true, path: '/' })).toThrow(/option "path"/);
  });

  it('refuses a refresh faster than 250 ms', () => {
    expect(() => dashboardSettings({ open: true, refreshMs: 100 })).toThrow(/option "refreshMs"/);
  });

  it('hides the parts redact names for a task name, by map or function', () => {
    const byMap = dashboardSettings({ open: true, redact: { 'mail.send': ['args', 'errors'] } });
    expect([...byMap.hiddenParts('mail.send')]).toEqual(['args', 'errors']);
    expect([...byMap.hiddenParts('constructor')]).toEqual([]);
    expect([...byMap.hiddenParts('other')]).toEqual([]);
    const byFunction = dashboardSettings({
      open: true,
      redact: (name) => (name.startsWith('billing.') ? ['result'] : []),
    });
    expect([...byFunction.hiddenParts('billing.charge')]).toEqual(['result']);
  });
});
