/**
 * The tier catalogue (docs/local-runtime.md): the one list of subscription tiers, their prices and
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

export const defaultTierCatalogue: TierCatalogue = {
  tiers: {
    basic: { name: 'basic', priceCents: 1000, monthlyPageCredits: 100 },
    pro: { name: 'pro', priceCents: 5000, monthlyPageCredits: 500 },
  },
  importTier: 'pro',
  overageCentsPerPage: 2,
};

export function parseTierCatalogue(json: string | undefined): TierCatalogue {
  if (!json) return defaultTierCatalogue;
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
    : defaultTierCatalogue.tiers;
  const parsed = {
    tiers,
    importTier: raw.importTier ?? defaultTierCatalogue.importTier,
    overageCentsPerPage: raw.overageCentsPerPage ?? defaultTierCatalogue.overageCentsPerPage,
  };
  if (!parsed.tiers[parsed.importTier]) throw new Error(`TIER_CATALOGUE: importTier ${parsed.importTier} is not a tier`);
  return parsed;
}

export function tier(tierCatalogue: TierCatalogue, name: string): Tier {
  const found = tierCatalogue.tiers[name];
  if (!found) throw new Error(`Unknown tier: ${name}`);
  return found;
}
