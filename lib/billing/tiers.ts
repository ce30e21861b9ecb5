/**
 * The tier catalogue (local-runtime.md): the one list of subscription tiers, their prices and
 * monthly page credits. Configurable as JSON in TIER_CATALOGUE, e.g.
 * `{"tiers":{"basic":{"priceCents":1000,"monthlyPageCredits":100}},"importTier":"basic"}`.
 */
export interface Tier {
  name: string;
  priceCents: number;
  monthlyPageCredits: number;
}

export interface TierCatalogue {
  tiers: Record<string, Tier>;
  /** The USD 50 per month tier that import requires. */
  importTier: string;
  /** Price of a page beyond the monthly credits. */
  overageCentsPerPage: number;
}

export const defaultCatalogue: TierCatalogue = {
  tiers: {
    basic: { name: 'basic', priceCents: 1000, monthlyPageCredits: 100 },
    pro: { name: 'pro', priceCents: 5000, monthlyPageCredits: 500 },
  },
  importTier: 'pro',
  overageCentsPerPage: 2,
};

export function parseCatalogue(json: string | undefined): TierCatalogue {
  if (!json) return defaultCatalogue;
  const raw = JSON.parse(json) as {
    tiers?: Record<string, { priceCents: number; monthlyPageCredits: number }>;
    importTier?: string;
    overageCentsPerPage?: number;
  };
  const tiers = raw.tiers
    ? Object.fromEntries(
        Object.entries(raw.tiers).map(([name, t]) => {
          if (!Number.isInteger(t.priceCents) || !Number.isInteger(t.monthlyPageCredits) || t.monthlyPageCredits < 0) {
            throw new Error(`TIER_CATALOGUE: tier ${name} needs whole-number priceCents and monthlyPageCredits`);
          }
          return [name, { name, priceCents: t.priceCents, monthlyPageCredits: t.monthlyPageCredits }];
        }),
      )
    : defaultCatalogue.tiers;
  const catalogue = {
    tiers,
    importTier: raw.importTier ?? defaultCatalogue.importTier,
    overageCentsPerPage: raw.overageCentsPerPage ?? defaultCatalogue.overageCentsPerPage,
  };
  if (!catalogue.tiers[catalogue.importTier]) throw new Error(`TIER_CATALOGUE: importTier ${catalogue.importTier} is not a tier`);
  return catalogue;
}

export function tier(catalogue: TierCatalogue, name: string): Tier {
  const found = catalogue.tiers[name];
  if (!found) throw new Error(`Unknown tier: ${name}`);
  return found;
}
