from shipping import shipping_cost, zone_for


def test_zones():
    assert zone_for("DE") == "eu"
    assert zone_for("JP") == "world"


def test_free_over_threshold():
    assert shipping_cost(60.0, "FR") == 0.0


def test_heavy_parcel():
    assert shipping_cost(20.0, "ES", weight_kg=12) == 14.9
