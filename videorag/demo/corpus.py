"""The sample corpus of `videorag demo`: short narrated how-to videos with known steps."""

from __future__ import annotations

from .render import HowTo

SAMPLES = (
    HowTo(
        "repot-a-houseplant",
        "How to repot a houseplant",
        (
            "Today I will show you how to move a houseplant into a bigger pot.",
            "First, water the plant the day before so the roots slide out easily.",
            "Choose a new pot that is about five centimetres wider and has a drainage hole.",
            "Tip the old pot on its side and gently pull the plant out by the base of the stem.",
            "Loosen the root ball with your fingers and trim any brown, mushy roots.",
            "Put fresh potting soil in the new pot, set the plant in, and fill around it.",
            "Finally, water it well and keep it out of direct sun for a week.",
        ),
    ),
    HowTo(
        "fix-a-flat-bike-tire",
        "How to fix a flat bicycle tire",
        (
            "In this video we repair a punctured bicycle inner tube.",
            "Start by opening the brake and removing the wheel from the frame.",
            "Use two tire levers to pry one side of the tire off the rim.",
            "Pull out the inner tube and pump some air into it to find the hole.",
            "Roughen the area around the hole with sandpaper and spread a thin layer of glue.",
            "Wait one minute until the glue turns dull, then press the patch on firmly.",
            "Put the tube back, seat the tire, and inflate it to the pressure printed on the sidewall.",
        ),
    ),
    HowTo(
        "brew-pour-over-coffee",
        "How to brew pour-over coffee",
        (
            "Let's make a clean cup of pour-over coffee.",
            "Heat water to about ninety four degrees, just off the boil.",
            "Grind twenty grams of beans to the size of coarse sea salt.",
            "Rinse the paper filter with hot water to remove the papery taste.",
            "Pour a little water to let the grounds bloom for thirty seconds.",
            "Then pour slowly in circles until you reach three hundred grams of water.",
            "The whole brew should take about three minutes.",
        ),
    ),
    HowTo(
        "paint-a-wall",
        "How to paint a room wall",
        (
            "Here is how to paint a wall without streaks.",
            "Move furniture away and cover the floor with a drop cloth.",
            "Fill small holes with spackle and sand them smooth once dry.",
            "Apply painter's tape along the ceiling and the skirting boards.",
            "Cut in the edges with a brush before using the roller.",
            "Roll the paint in a large W pattern and keep a wet edge.",
            "Let the first coat dry for four hours before the second coat.",
        ),
    ),
    HowTo(
        "clean-a-cast-iron-pan",
        "How to clean a cast iron pan",
        (
            "Cast iron needs a little care after each use.",
            "While the pan is still warm, scrape out food with a wooden spatula.",
            "Scrub it with coarse salt and a little hot water instead of soap.",
            "Dry the pan completely on the stove over low heat so it does not rust.",
            "Rub a thin film of vegetable oil over the whole surface with a paper towel.",
            "Store it in a dry place with a paper towel inside to absorb moisture.",
        ),
    ),
)

QUESTIONS = (
    "How long should I wait before adding another layer of paint?",
    "What do I use instead of dish soap on my skillet?",
    "How do I find where the inner tube is leaking?",
    "How hot should the water be for coffee?",
)
