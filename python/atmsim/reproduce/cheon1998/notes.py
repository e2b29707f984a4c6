def notes(m, claims, quick):
    return {}
