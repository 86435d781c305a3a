"""Shipping costs for a small online shop."""

FREE_SHIPPING_FROM = 500.0
ZONE_RATES = {"domestic": 4.9, "eu": 9.9, "world": 19.9}
HEAVY_KG = 10.0
HEAVY_SURCHARGE = 5.0


def zone_for(country):
    if country == "FR":
        return "domestic"
    if country in {"DE", "ES", "IT", "BE", "NL"}:
        return "eu"
    return "world"


def shipping_cost(subtotal, country, weight_kg=1.0):
    """Free from FREE_SHIPPING_FROM for domestic orders; zone rate, plus a surcharge for heavy
    parcels, otherwise."""
    zone = zone_for(country)
    if zone == "domestic" and subtotal >= FREE_SHIPPING_FROM:
        return 0.0
    cost = ZONE_RATES[zone]
    if weight_kg > HEAVY_KG:
        cost += HEAVY_SURCHARGE
    return round(cost, 2)
