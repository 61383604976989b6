// @ts-check
// The admin's tenant filter: a configured client's name, or a tenant's hash as the lists show it.
import { el } from './dom.js';

const TENANT_HASH = /^[A-Za-z0-9_-]{43}$/;

/** The API query (`&client=…` or `&tenant=…`) of the tenant the location names, or ''. @param {URLSearchParams} params */
export function tenantQueryOf(params) {
  const client = params.get('client');
  const tenant = params.get('tenant');
  if (client) return `&client=${encodeURIComponent(client)}`;
  if (tenant) return `&tenant=${encodeURIComponent(tenant)}`;
  return '';
}

/**
 * A form that names a tenant for the view at `base` (its other parameters kept).
 * @param {string} base the view's location, e.g. `#/overview`
 * @param {URLSearchParams} params
 */
export function tenantFilter(base, params) {
  const input = /** @type {HTMLInputElement} */ (
    el('input', {
      id: 'tenant-filter',
      type: 'search',
      placeholder: 'client name or tenant hash',
      'aria-label': 'Tenant',
      value: params.get('client') ?? params.get('tenant') ?? '',
    })
  );
  return el(
    'form',
    {
      class: 'filters',
      onsubmit: (event) => {
        event.preventDefault();
        const next = new URLSearchParams(params);
        next.delete('client');
        next.delete('tenant');
        const value = input.value.trim();
        if (value) next.set(TENANT_HASH.test(value) ? 'tenant' : 'client', value);
        location.hash = `${base}?${next}`;
      },
    },
    el('label', { for: 'tenant-filter' }, 'Tenant'),
    input,
    el('button', { type: 'submit', class: 'small' }, 'Apply'),
  );
}
